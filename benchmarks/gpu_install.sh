# The device side of benchmarks/gpu_wheels.py: `source benchmarks/gpu_install.sh && ...` at the start of every call
# on the lent GPU machine. Installs the wheels this call carried (.whl/N) into /tmp/site, keeps the parts of a split
# wheel in /tmp/whl-parts until all of them have come (one per call), then joins and installs it, and puts /tmp/site
# on PYTHONPATH. /tmp lasts while the machine stays warm (30 s after a call): make the calls one right after another.
mkdir -p /tmp/site /tmp/whl-parts
for part in .whl/*/*.part[0-9][0-9]of[0-9][0-9]; do
    [ -e "$part" ] && cp "$part" /tmp/whl-parts/
done
wheels=()
for wheel in .whl/*/*.whl; do
    [ -e "$wheel" ] && wheels+=("$wheel")
done
for first in /tmp/whl-parts/*.part01of[0-9][0-9]; do
    [ -e "$first" ] || continue
    wheel=${first%.part01of*}
    count=${first##*of}
    parts=("$wheel".part[0-9][0-9]of"$count")
    if (( ${#parts[@]} == 10#$count )); then
        cat "${parts[@]}" > "$wheel" && rm "${parts[@]}" && wheels+=("$wheel")
    else
        echo "gpu_install: ${#parts[@]} of $((10#$count)) parts of $(basename "$wheel") so far"
    fi
done
if (( ${#wheels[@]} )); then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        "${wheels[@]}" && echo "gpu_install: installed ${#wheels[@]} wheel(s) into /tmp/site"
fi && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
