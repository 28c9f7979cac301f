#!/usr/bin/env bash
# Completes a CUDA 13 toolkit in /usr/local/cuda that lacks NVRTC (as one
# assembled from NVIDIA's PyPI wheels without nvidia-cuda-nvrtc is): puts
# libnvrtc.so.13 and its builtins from NVIDIA's nvidia-cuda-nvrtc wheel, of
# the toolkit's own version, into /usr/local/cuda/lib64. Does nothing
# without /usr/local/cuda, when NVRTC is already there, or when not root
# (the CUDA tests then say NVRTC is missing). A failed download is a
# warning, not an error: xtune builds and runs without NVRTC.
set -uo pipefail
cuda=/usr/local/cuda
lib=$cuda/lib64
[ -d "$lib" ] || exit 0
if [ -e "$lib/libnvrtc.so.13" ] && ldconfig -p | grep -q libnvrtc-builtins.so.13; then
  exit 0
fi
[ "$(id -u)" -eq 0 ] || exit 0
version=13.0.88
for d in "$cuda"/dist-info/nvidia_cuda_nvcc-*.dist-info; do
  [ -e "$d" ] || continue
  v=${d##*/nvidia_cuda_nvcc-}
  version=${v%.dist-info}
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python=$(command -v python3)
if ! "$python" -m pip download --quiet --no-deps -d "$tmp" \
    "nvidia-cuda-nvrtc==$version" >"$tmp/pip.log" 2>&1; then
  echo "install_nvrtc: could not download nvidia-cuda-nvrtc==$version:" >&2
  tail -3 "$tmp/pip.log" >&2
  exit 0
fi
"$python" - "$tmp" "$lib" <<'PY'
import glob, os, shutil, sys, zipfile
tmp, lib = sys.argv[1], sys.argv[2]
wheel = glob.glob(os.path.join(tmp, "*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        base = os.path.basename(name)
        if base.startswith("libnvrtc") and ".so" in base:
            part = os.path.join(lib, base + ".part")
            with z.open(name) as src, open(part, "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.chmod(part, 0o755)
            os.replace(part, os.path.join(lib, base))
PY
ln -sf libnvrtc.so.13 "$lib/libnvrtc.so"
# NVRTC loads its builtins by name: the toolkit's libraries go on the
# loader's path, as NVIDIA's packages put them.
if ! grep -qsx "$lib" /etc/ld.so.conf.d/*.conf; then
  echo "$lib" >/etc/ld.so.conf.d/xtune-cuda.conf
fi
ldconfig
echo "install_nvrtc: installed NVRTC $version into $lib" >&2
