#!/bin/sh
# tests/unit/tls/make-certs.sh DIR: the certificates tests/unit/tls/test_endpoint.c
# and bench/tls_endpoint.c use, made fresh in DIR with openssl (P-256 keys):
#   ca.crt/ca.key            a test CA
#   api.crt/api.key          leaf for api.example, signed by ca
#   other.crt/other.key      leaf for other.example and www.other.example, signed by ca
#   expired.crt/expired.key  leaf for api.example, valid in 2020 only
#   future.crt/future.key    leaf for api.example, valid from 2090
#   ip.crt/ip.key            leaf whose only SAN is IP 127.0.0.1, signed by ca
#   rogue-ca.crt, rogue.crt/rogue.key  a second CA, and a leaf for api.example it signed
#   api-chain.crt            api.crt then ca.crt
# Nothing here is secret: the keys are made for one test run and removed.
set -eu
d=$1
cd "$d"
ec="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"

mkca() { # name subject
	openssl req -x509 $ec -keyout "$1.key" -out "$1.crt" -subj "/CN=$2" -days 3 \
		-addext basicConstraints=critical,CA:TRUE \
		-addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
}
mkca ca "porta test CA"
mkca rogue-ca "porta rogue test CA"

# openssl ca sets any validity window (openssl x509 -req cannot before 3.4).
mkdir -p db
: > db/index.txt
echo 1000 > db/serial
cat > ca.cnf <<CNF
[ca]
default_ca = test
[test]
database = db/index.txt
serial = db/serial
new_certs_dir = db
default_md = sha256
policy = any
copy_extensions = none
unique_subject = no
[any]
commonName = supplied
CNF

leaf() { # name ca san [start end]
	openssl req -new $ec -keyout "$1.key" -out "$1.csr" -subj "/CN=$1 leaf" 2>/dev/null
	printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "$3" > "$1.ext"
	if [ $# -ge 5 ]; then
		when="-startdate $4 -enddate $5"
	else
		when="-days 1"
	fi
	openssl ca -batch -config ca.cnf -cert "$2.crt" -keyfile "$2.key" -in "$1.csr" \
		-out "$1.crt" -extfile "$1.ext" -notext $when 2>/dev/null
}
leaf api ca DNS:api.example
leaf other ca DNS:other.example,DNS:www.other.example
leaf expired ca DNS:api.example 20200101000000Z 20200102000000Z
leaf future ca DNS:api.example 20900101000000Z 20900102000000Z
leaf ip ca IP:127.0.0.1
leaf rogue rogue-ca DNS:api.example
cat api.crt ca.crt > api-chain.crt
