# complete.zsh DIR OUTDIR LINE...: types each LINE and a tab into one
# interactive zsh (on a pseudo-terminal) whose fpath holds the completion
# functions of DIR, and writes every match the completion offers for the
# Nth line to the file OUTDIR/N, one a line. The matches are recorded by
# a compadd that adds nothing, so no listing or menu gets in the way.
# Each step waits for a marker the shell prints once it has done the step
# before: a tab runs a widget that completes and then shows CMPL<N>., so
# that nothing is typed ahead while the completion runs (the completion
# system gives up when input is pending).
zmodload zsh/zpty || exit 3
dir=$1 outdir=$2
shift 2
zpty z zsh -f -i
zpty -w z "PS1='' RPS1=''; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D; out=/dev/null"
zpty -w z "compadd() { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return; fi; local -a h; builtin compadd -A h \"\$@\"; print -rl -- \$h >> \$out }"
zpty -w z "tstn=0; tstc() { zle complete-word; zle -M \"CMPL\$((++tstn)).\" }; zle -N tstc; bindkey '^I' tstc"
zpty -w z "print -r READY''0"
zpty -r z x '*READY0*' || exit 4
n=0
for line; do
	n=$((n+1))
	: >$outdir/$n
	zpty -w z "out=${(q)outdir}/$n; print -r SET''$n."
	zpty -r z x "*SET$n.*" || exit 5
	zpty -w -n z "$line"$'\t'
	zpty -r z x "*CMPL$n.*" || exit 5
	zpty -w z $'\x15'"print -r DONE''$n."
	zpty -r z x "*DONE$n.*" || exit 5
done
zpty -d z
