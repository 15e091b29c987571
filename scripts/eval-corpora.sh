#!/usr/bin/env bash
# eval-corpora.sh DIR: installs the retrieval benchmark's corpora that are
# not in the repository into DIR (make eval-corpora: .cache/eval), from the
# registries, pinned so the questions' answers stay where they were
# written: npm's documentation (docs/content of the npm package, from the
# npm registry) and Python's (the reStructuredText sources of Debian's
# python3.11-doc). A corpus already there is left as it is.
set -euo pipefail
dir=${1:?usage: eval-corpora.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

npm_version=11.19.1
if [ ! -f "$dir/npm-$npm_version/docs/content/commands/npm-link.md" ]; then
	echo "eval-corpora: npm@$npm_version's docs from the npm registry"
	(cd "$tmp" && npm pack --silent "npm@$npm_version" >/dev/null)
	mkdir -p "$tmp/npm" && tar -xzf "$tmp/npm-$npm_version.tgz" -C "$tmp/npm"
	rm -rf "$dir/npm-$npm_version" && mv "$tmp/npm/package" "$dir/npm-$npm_version"
fi

python_package=python3.11-doc
python_version=3.11.2-6+deb12u9
python_pool=https://deb.debian.org/debian-security/pool/updates/main/p/python3.11
python_sha256=5b3594189d6ef9a6963ce0347fd307a1cc67620ad697e144db366070e2e146be
if [ ! -f "$dir/python-3.11/library/json.rst.txt" ]; then
	echo "eval-corpora: Python 3.11's docs from Debian's $python_package"
	# apt-get download takes the version this machine's package lists name;
	# without lists (or without apt), the pinned version from Debian's pool.
	if ! (cd "$tmp" && apt-get download -q "$python_package=$python_version" >/dev/null 2>&1); then
		curl -fsSL -o "$tmp/${python_package}_${python_version}_all.deb" \
			"$python_pool/${python_package}_${python_version//+/%2B}_all.deb"
	fi
	echo "$python_sha256  $(ls "$tmp"/"$python_package"_*_all.deb)" | sha256sum -c --quiet
	dpkg-deb -x "$tmp"/"$python_package"_*_all.deb "$tmp/x"
	rm -rf "$dir/python-3.11" && mv "$tmp/x/usr/share/doc/python3.11/html/_sources" "$dir/python-3.11"
fi
