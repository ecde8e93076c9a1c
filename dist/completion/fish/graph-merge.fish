# fish completion of graph-merge. Generated from its command line by go generate ./dist. DO NOT EDIT.
complete -c graph-merge -s h -l help -d 'Show context-sensitive help'
complete -c graph-merge -l version -d 'Print the version and exit'
complete -c graph-merge -s o -l output -x -a 'json yaml dot' -d 'Output format: json, yaml or dot'
complete -c graph-merge -l allow-unmatched -d 'Warn about, instead of failing on, a mgmt_<X> class or a puppet_<X> noop without a partner'
complete -c graph-merge -l log-format -x -a 'text plain json' -d 'Log format on stderr: text (time, level, tool: message), plain (tool: message, as compilers write diagnostics) or json (one object per line, for journald, Loki, jq)'
complete -c graph-merge -s v -l debug -d 'Log debug messages too'
complete -c graph-merge -l max-document-mib -x -d 'Refuse a graph document larger than this many MiB: it is read to its end without being kept, reported at its start, and the next document is read (the engine keeps its graph)'
