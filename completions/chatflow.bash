# bash completion for chatflow                                     -*- shell-script -*-
#
# Install:  chatflow completion bash > ~/.local/share/bash-completion/completions/chatflow
#      or:  echo 'source <(chatflow completion bash)' >> ~/.bashrc
#
# This script holds no command list: `chatflow __complete -- <words...>` walks the CLI's own
# command tree and answers one candidate a line (`value<TAB>description`; bash lists both, inserts
# the value).
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

    local out c d f i
    local -a values=() descs=()
    out=$(command chatflow __complete -- "${words[@]:1}" 2>/dev/null)
    COMPREPLY=()
    while IFS= read -r c; do
        [[ -z $c ]] && continue
        d=
        [[ $c == *$'\t'* ]] && d=${c#*$'\t'}
        c=${c%%$'\t'*}
        if [[ $c == :files ]]; then
            compopt -o filenames 2>/dev/null
            while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -f -- "${cur#"$prefix"}")
            continue
        fi
        values+=("${c#"$prefix"}")
        descs+=("$d")
    done <<<"$out"

    # Names beside ids: when bash lists several candidates, each shows as `value  (description)`,
    # padded to one column and cut to the terminal's width. What bash inserts stays the value: one
    # candidate alone is the bare value, and their common prefix is the values' (a value is never
    # followed by two spaces in another). Menu completion (37 `%`) and insert-all (42 `*`) insert
    # each entry: values only.
    if ((${#values[@]} > 1)) && [[ ${COMP_TYPE:-9} != 37 && ${COMP_TYPE:-9} != 42 ]]; then
        local longest=0 cols=${COLUMNS:-80}
        for c in "${values[@]}"; do ((${#c} > longest)) && longest=${#c}; done
        for i in "${!values[@]}"; do
            [[ -z ${descs[i]} ]] && continue
            printf -v c '%-*s  (%s)' "$longest" "${values[i]}" "${descs[i]}"
            ((${#c} >= cols && cols > longest + 8)) && c="${c:0:cols-3}…)"
            values[i]=$c
        done
    fi
    COMPREPLY+=("${values[@]}")
    return 0
}

complete -o nosort -F _chatflow chatflow 2>/dev/null || complete -F _chatflow chatflow
