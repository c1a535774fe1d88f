#compdef chatflow
# zsh completion for chatflow
#
# Install:  echo 'source <(chatflow completion zsh)' >> ~/.zshrc        (runs compinit if needed)
#      or:  chatflow completion zsh > "${fpath[1]}/_chatflow"            (then restart zsh)
#
# This script holds no command list: `chatflow __complete -- <words...>` walks the CLI's own
# command tree and answers one candidate a line (`value<TAB>description`). The line `:files`
# asks for file names.

_chatflow() {
    local -a vals disp
    local out line val desc
    local -i width=0 described=0 ret=1
    # The words before the current one, and the current one up to the cursor.
    out=$(command chatflow __complete -- "${(@)words[2,CURRENT-1]}" "$PREFIX" 2>/dev/null)
    for line in "${(@f)out}"; do
        [[ -z $line ]] && continue
        if [[ $line == :files ]]; then
            _files && ret=0
            continue
        fi
        val=${line%%$'\t'*}
        vals+=("$val")
        (( ${#val} > width )) && width=${#val}
    done
    (( ${#vals} )) || return ret
    for line in "${(@f)out}"; do
        [[ -z $line || $line == :files ]] && continue
        val=${line%%$'\t'*}
        if [[ $line == *$'\t'* ]]; then
            desc=${line#*$'\t'}
            disp+=("${(r:width:)val}  -- $desc")
            described=1
        else
            disp+=("$val")
        fi
    done
    if (( described )); then
        compadd -l -d disp -a vals && ret=0
    else
        compadd -a vals && ret=0
    fi
    return ret
}

if [[ ${funcstack[1]} == _chatflow ]]; then
    # loaded from fpath
    _chatflow "$@"
else
    # sourced: a fresh .zshrc may not have started the completion system yet (no compdef)
    (( $+functions[compdef] )) || { autoload -Uz compinit && compinit -i; }
    compdef _chatflow chatflow
fi
