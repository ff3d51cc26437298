#!/bin/sh
# Joins the Redis nodes named as HOST:PORT arguments into one cluster of
# masters, once: docker-compose.yml's cluster profile runs it as a
# one-shot service before the server processes start.  On a later
# "docker compose up" the nodes remember their cluster (nodes.conf on
# their volumes), and it only waits for the cluster to be ok again.
set -eu

cluster_ok() {
    for node in "$@"; do
        redis-cli -h "${node%:*}" -p "${node##*:}" cluster info | grep -q '^cluster_state:ok' || return 1
    done
}

first="$1"
known=$(redis-cli -h "${first%:*}" -p "${first##*:}" cluster info | sed -n 's/^cluster_known_nodes:\([0-9]*\).*/\1/p')
if [ "$known" -gt 1 ]; then
    echo "the nodes already form a cluster ($known known to $first)"
else
    # CLUSTER MEET takes IP addresses, not host names (upstream:
    # https://github.com/redis/redis/issues/11148): resolve each service
    # name.  The nodes announce their names to clients
    # (cluster-announce-hostname), so a container's new address after a
    # restart does not matter to the servers.
    addresses=""
    for node in "$@"; do
        address=$(getent hosts "${node%:*}" | cut -d' ' -f1)
        addresses="$addresses $address:${node##*:}"
    done
    # shellcheck disable=SC2086
    redis-cli --cluster create $addresses --cluster-replicas 0 --cluster-yes
fi

tries=0
until cluster_ok "$@"; do
    tries=$((tries + 1))
    if [ "$tries" -gt 60 ]; then
        echo "the cluster is not ok after 60 s" >&2
        exit 1
    fi
    sleep 1
done
echo "cluster ok: $*"
