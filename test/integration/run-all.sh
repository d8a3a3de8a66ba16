#!/bin/bash
# Runs every live-cluster scenario once and prints one closing line
# "N passed, M failed" over all their checks.
set -u
here=$(cd "$(dirname "$0")" && pwd)
total_pass=0 total_fail=0
for scenario in "$here"/parity.sh "$here"/limits.sh "$here"/modes.sh \
    "$here"/reliability_crash.sh "$here"/reliability_state.sh "$here"/reliability_damage.sh \
    "$here"/reliability_time.sh "$here"/reliability_config.sh "$here"/check_config_truth.sh \
    "$here"/reliability_concurrency.sh "$here"/reliability_privacy.sh \
    "$here"/accounting.sh; do
  name=$(basename "$scenario" .sh)
  echo "--- scenario $name"
  output=$(bash "$scenario" 2>&1)
  status=$?
  echo "$output"
  line=$(echo "$output" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -1)
  if [ -z "$line" ]; then
    echo "FAIL: scenario $name ended without a summary (status $status)"
    total_fail=$((total_fail + 1))
    continue
  fi
  total_pass=$((total_pass + ${line%% passed*}))
  f=${line#*, }; total_fail=$((total_fail + ${f%% failed}))
  if [ $status -ne 0 ] && [ "${f%% failed}" = 0 ]; then total_fail=$((total_fail + 1)); fi
done
echo "integration: $total_pass passed, $total_fail failed"
[ $total_fail -eq 0 ]
