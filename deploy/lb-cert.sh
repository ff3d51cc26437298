#!/bin/sh
# Makes the load balancer's TLS certificate once, if the directory DIR
# has none: docker-compose.yml's cluster profile runs it as a one-shot
# service (lb-cert) before haproxy starts.  The certificate is
# self-signed, for NAME (default localhost) and 127.0.0.1, good for
# trying wss:// on one machine: DIR/arena.pem holds the certificate and
# its key, as haproxy's "crt" reads them, and DIR/ca.pem the certificate
# alone, which clients trust with --ca (ARENA_CA) or ArenaClient's ca.
# A real deployment puts its own certificate chain and key, in that
# order, in DIR/arena.pem instead; this script then keeps it.
set -eu

dir="$1"
name="${2:-localhost}"
if [ -s "$dir/arena.pem" ]; then
    echo "kept the certificate in $dir/arena.pem"
    exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 \
    -subj "/CN=$name" -addext "subjectAltName=DNS:$name,IP:127.0.0.1" \
    -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
cat "$work/cert.pem" "$work/key.pem" > "$work/arena.pem"
# haproxy's image runs it as its own user, which must read the key; the
# volume is mounted by lb and this one-shot only.
chmod 644 "$work/arena.pem" "$work/cert.pem"
cp "$work/cert.pem" "$dir/ca.pem"
mv "$work/arena.pem" "$dir/arena.pem"
echo "made a self-signed certificate for $name in $dir/arena.pem (clients trust $dir/ca.pem)"
