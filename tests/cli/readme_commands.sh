#!/usr/bin/env bash
# Runs every `build/bin/perp …` line of README.md's "Command line" block as printed, from a scratch
# folder that sees the repository's build/, data/ and examples/ (so that the files the commands
# write, out/, cones.png, …, land there), and fails on any exit code other than 0 (solved) or on
# a missing file. Usage: readme_commands.sh REPO_ROOT PERP_BINARY
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
echo "$((count - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
