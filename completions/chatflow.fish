# fish completion for chatflow
#
# Install:  chatflow completion fish > ~/.config/fish/completions/chatflow.fish
#
# This script holds no command list: `chatflow __complete -- <words...>` walks the CLI's own
# command tree and answers one candidate a line (`value<TAB>description`). The line `:files`
# asks for file names.

function __chatflow_complete
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cur (commandline -ct)
    for line in (command chatflow __complete -- $tokens "$cur" 2>/dev/null)
        if test "$line" = ":files"
            __fish_complete_path "$cur"
        else
            printf '%s\n' $line
        end
    end
end

complete -c chatflow -f -a '(__chatflow_complete)'
