# bash completion for chatflow                                     -*- shell-script -*-
#
# Install:  chatflow completion bash > ~/.local/share/bash-completion/completions/chatflow
#      or:  echo 'source <(chatflow completion bash)' >> ~/.bashrc
#
# This script holds no command list: `chatflow __complete -- <words...>` walks the CLI's own
# command tree and answers one candidate a line (`value<TAB>description`; bash keeps the value).
# The line `:files` asks for file names.

_chatflow() {
    # The words up to the cursor, glued back where bash split them at `=` or `:` (COMP_WORDBREAKS):
    # a word with no white space before it belongs to the previous one (`--output=json`, URLs).
    local line=${COMP_LINE:0:COMP_POINT} rest w i n=-1
    local -a words=()
    for ((i = 0; i <= COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        rest=${line#"${line%%[![:space:]]*}"}
        ((i == COMP_CWORD)) && w=$rest
        if ((n >= 0 && ${#rest} == ${#line})); then
            words[n]+=$w
        else
            words[++n]=$w
        fi
        line=${rest:${#w}}
    done
    local cur=${words[n]}

    # bash replaces only the text after the last `=` or `:` of the word: answer that part.
    local prefix= breaks=${COMP_WORDBREAKS//[^=:]/}
    if [[ -n $breaks && $cur == *["$breaks"]* ]]; then
        prefix=${cur%"${cur##*["$breaks"]}"}
    fi

    local out c f
    out=$(command chatflow __complete -- "${words[@]:1}" 2>/dev/null)
    COMPREPLY=()
    while IFS= read -r c; do
        c=${c%%$'\t'*}
        [[ -z $c ]] && continue
        if [[ $c == :files ]]; then
            compopt -o filenames 2>/dev/null
            while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -f -- "${cur#"$prefix"}")
            continue
        fi
        COMPREPLY+=("${c#"$prefix"}")
    done <<<"$out"
    return 0
}

complete -o nosort -F _chatflow chatflow 2>/dev/null || complete -F _chatflow chatflow
