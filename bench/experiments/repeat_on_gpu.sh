#!/usr/bin/env bash
# repeat_on_gpu.sh N CHECKOUT FILE [syncc run options...]: run FILE N times on the GPU with the
# syncc of CHECKOUT (a directory holding syncc/), print how many runs passed, hung or went wrong.
n=$1; where=$2; file=$3; shift 3
ok=0; hang=0; wrong=0; other=0
for i in $(seq "$n"); do
  (cd "$where" && PYTHONPATH="/tmp/site:$PWD" python3 -m syncc run "$OLDPWD/$file" --target gpu --timeout 5 "$@") > /tmp/repeat.log 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then ok=$((ok+1)); elif [ $rc -eq 3 ]; then hang=$((hang+1));
  elif grep -q E0901 /tmp/repeat.log; then wrong=$((wrong+1)); grep -m1 'check failed' /tmp/repeat.log; else other=$((other+1)); fi
done
echo "$file [$where]: ok $ok, hang $hang, wrong $wrong, other $other of $n"
