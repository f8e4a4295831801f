#!/usr/bin/env bash
# Every GPU figure of docs/benchmarks.md ("GPU figures") in one run of under ten minutes on one
# NVIDIA H100 or H200, each step under its own time limit, most wanted first:
#   1. the JAX trainer's learner decisions/s at jax_gpu's sizes with its league (three
#      snapshots), its batching rules on and off (bench/train_jax.py);
#   2. time to strength: PPO in JAX from fresh weights (configs/train/jax_gpu.yaml) for a
#      fixed budget, evaluated against its training opponents (the heuristic is played after,
#      on any machine: hilo tournament jax:<run>/model.npz heuristic --hands 40000);
#   3. a best response to ppo on the JAX trainer, from ppo's weights, its bound over 1,000
#      duplicate deals;
#   4. the JAX backend's agent steps/s at the batch sizes below 2^20, beside pgx, to hold
#      against the run of fa0ee39 (bench/jax.py);
#   5. at 2^20 games, the default against the new decks' and the showdowns' rules off (the
#      2026-11-27 run measured the others: docs/benchmarks.md; bench/jax.py --shares).
# The log is OUT_DIR/gpu.txt, the runs' curves and final models OUT_DIR/runs.tgz.
#   bash bench/gpu.sh OUT_DIR              # from the repository root, jax with its GPU plugin
#   SMALL=1 bash bench/gpu.sh OUT_DIR      # every step at tiny sizes: the script tried on a CPU
# TOTAL (seconds, default 540) bounds the whole run; PYTHON names the interpreter.
set -u
out=${1:?usage: bash bench/gpu.sh OUT_DIR}
mkdir -p "$out/runs"
log="$out/gpu.txt"
py=${PYTHON:-python3}
total=${TOTAL:-540}
export PYTHONUNBUFFERED=1
export PYTHONSAFEPATH=1  # the installed hilo_env, not the source folder of the cwd

step() {  # step NAME SECONDS COMMAND...: the command under min(SECONDS, time left), logged
  local name=$1 limit=$2
  shift 2
  local left=$((total - SECONDS))
  ((limit > left)) && limit=$left
  if ((limit < 20)); then
    echo "== $name: skipped, ${left} s left" | tee -a "$log"
    return
  fi
  echo "== $name (limit ${limit} s, at ${SECONDS} s): $*" | tee -a "$log"
  local began=$SECONDS
  timeout -k 5 "$limit" "$@" 2>&1 | tee -a "$log"
  echo "== $name: exit ${PIPESTATUS[0]} after $((SECONDS - began)) s" | tee -a "$log"
}

if [[ -n ${SMALL:-} ]]; then
  sizes=(--num-envs 64 --n-steps 8 --batch-size 256)
  train=(num_envs=64 n_steps=8 batch_size=256 eval_hands=50 seconds=30)
  response=(num_envs=64 n_steps=8 batch_size=256 hands=50 minutes=0.4)
  batches=(--batches 256 --repeats 1 --seconds 0.2)
  sweep=(--batches 256 --repeats 1 --seconds 0.2)
else
  sizes=(--repeats 2)
  train=(eval_hands=500 seconds=160)
  response=(num_envs=65536 n_steps=16 batch_size=65536 hands=1000 minutes=1.5)
  batches=(--batches 524288 262144 131072 65536 16384 4096 1024 --repeats 3 --seconds 0.5)
  sweep=(--batches 1048576 --repeats 3 --seconds 0.5)
fi

{ date -u; nvidia-smi -L 2>&1; "$py" -c "import jax; print('jax', jax.__version__, jax.devices())"; } \
  2>&1 | tee -a "$log"
step trainer 100 "$py" bench/train_jax.py --config jax_gpu --baselines ppo_standard caller \
  random --snapshots 3 --variants jax "jax plain" "${sizes[@]}"
step scratch 180 "$py" -c "
import sys
from hilo_env.training.config import TrainConfig
from hilo_env.training.jax_ppo import train
kw = dict(a.split('=') for a in sys.argv[1:])
seconds = float(kw.pop('seconds'))
config = TrainConfig.from_yaml('jax_gpu', output_dir='$out/runs',
                               **{k: int(v) for k, v in kw.items()})
print(train(config, progress=True, seconds=seconds))
" "${train[@]}"
step response 110 "$py" -c "
import sys
from hilo_env.training.exploit import exploit
kw = {k: float(v) if k == 'minutes' else int(v) for k, v in (a.split('=') for a in sys.argv[1:])}
print(exploit('ppo', start='ppo', seed=1, backend='jax', evals=1, output_dir='$out/runs',
              **kw).table())
" "${response[@]}"
step simulator 70 "$py" bench/jax.py --skip numpy learner "${batches[@]}"
step rules-off 50 "$py" bench/jax.py --skip numpy pgx learner "${sweep[@]}" --shares \
  4/8/4/4/8 4/8/0/4/8 4/8/4/4/0
tar czf "$out/runs.tgz" --exclude='snapshot_*' --exclude='model_*' -C "$out" runs && rm -r "$out/runs"
echo "== done at ${SECONDS} s" | tee -a "$log"
