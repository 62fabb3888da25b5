#!/usr/bin/env bash
# Runs every `build/bin/perp …` line of README.md's "Command line" block as printed, from a scratch
# folder that sees the repository's build/, data/ and examples/ (so that the files the commands
# write, out/, cones.png, …, land there), and fails on any exit code other than 0 (solved) or on
# a missing file. Then the commands of docs/*.md the same way, with `perp` on the PATH: the
# `perp …` and `build/bin/perp …` lines of ```sh blocks (and the `echo … > NAME.json` lines that
# write their inputs), and the `$ perp …` / `$ echo …` lines of the transcripts. A docs command may
# show a run that does not solve (exit 1); exit 2 and above (invalid input, a missing file) fail.
# Usage: readme_commands.sh REPO_ROOT PERP_BINARY
set -u
root=$1
perp=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/build/bin"
ln -s "$perp" "$scratch/build/bin/perp"
ln -s "$root/data" "$scratch/data"
ln -s "$root/examples" "$scratch/examples"
commands=$(sed -n '/^## Command line/,/^## /p' "$root/README.md" | sed -n '/^```sh/,/^```/p' | grep '^build/bin/perp')
[ -n "$commands" ] || { echo "no command found in README.md's Command line block"; exit 1; }
failed=0
count=0
while IFS= read -r line; do
  count=$((count + 1))
  command=${line%%#*}
  if ! (cd "$scratch" && eval "$command" >"$scratch/log" 2>&1); then
    echo "FAILED: $command"
    tail -5 "$scratch/log"
    failed=$((failed + 1))
  fi
done <<<"$commands"
docs_commands=$(for page in "$root"/docs/*.md; do
  awk '/^```/ { if (block) block = 0; else { block = 1; lang = substr($0, 4) }; next }
       block && lang == "sh" && /^(perp |build\/bin\/perp |echo .* > [a-z_]+\.json$)/ { print; next }
       block && /^\$ (perp|echo) / { print substr($0, 3) }' "$page"
done)
[ -n "$docs_commands" ] || { echo "no command found in docs/*.md"; exit 1; }
export PATH="$scratch/build/bin:$PATH"
while IFS= read -r line; do
  count=$((count + 1))
  command=${line%%#*}
  (cd "$scratch" && eval "$command" >"$scratch/log" 2>&1)
  code=$?
  if [ "$code" -gt 1 ]; then
    echo "FAILED (exit $code): $command"
    tail -5 "$scratch/log"
    failed=$((failed + 1))
  fi
done <<<"$docs_commands"
echo "$((count - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
