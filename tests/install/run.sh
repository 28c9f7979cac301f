#!/usr/bin/env bash
# Installs the build tree into a fresh prefix and uses it from outside, as
# a user would (tests/CMakeLists.txt runs this as install_consumer):
#   1. cmake --install BUILD --prefix WORK/prefix;
#   2. the installed CLI compiles and runs a module (--verify), dumping a
#      cache, with no build tree on its worker path;
#   3. tests/install/consumer, configured against the prefix only
#      (find_package(xtune)), builds; its program compiles and runs a module
#      through libxtune.so, and its xtune_add_test test loads the cache and
#      tunes nothing;
#   4. the Python module imports from the prefix and runs the module from
#      the cache.
# usage: run.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -euo pipefail
src=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in bin/xtune libexec/xtune/xtune_cpu_worker lib/libxtune.so include/xtune/compiler.h \
         lib/cmake/xtune/xtuneConfig.cmake lib/cmake/xtune/XtuneTesting.cmake; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $prefix/$f was not installed"; exit 1; }
done
module=$src/examples/mlp.hlo
cache=$work/cache.textproto
# The installed CLI, its CPU worker found beside it (prefix/libexec): the
# build tree's is hidden by running from a copy of the prefix elsewhere.
cp -r "$prefix" "$work/moved"
"$work/moved/bin/xtune" run "$module" --verify --xla_gpu_autotune_level=2 \
  --xla_gpu_dump_autotune_results_to="$cache" | tee "$work/cli.log"
grep -q "verify: every output matches" "$work/cli.log"
cmake -S "$src/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCACHE_FILE="$cache" -DMODULE_FILE="$module" > "$work/configure.log"
cmake --build "$work/consumer" -j 2 > "$work/build.log"
"$work/consumer/consumer" "$module" | tee "$work/consumer.log"
grep -q "^verified$" "$work/consumer.log"
# A real model: a JAX training step as XLA dumped it (untuned, for time).
XLA_FLAGS=--xla_gpu_autotune_level=0 "$work/consumer/consumer" \
  "$src/tests/xla_compat/h200/before/mlp_train_step.hlo" | tee "$work/model.log"
grep -q "^verified$" "$work/model.log"
ctest --test-dir "$work/consumer" --output-on-failure
# The Python module from the prefix (when the build made one), in a fresh
# interpreter that sees only the prefix.
site=$(echo "$work"/moved/lib/python3*/site-packages)
if [ -d "$site/xtune" ]; then
  PYTHONPATH=$site /usr/bin/python3 -c "
import sys, xtune
assert xtune.__file__.startswith('$site'), xtune.__file__
prog = xtune.compile('$module', xla_flags='--xla_gpu_load_autotune_results_from=$cache')
assert prog.stats['tuned'] == 0, prog.stats
assert prog.verify()
print('python from the prefix:', prog.stats['summary'])
"
fi
echo "PASS: installed into $prefix and used from an outside project"
