#!/bin/sh
# Regenerates the test PKI: a CA, a server certificate for 127.0.0.1/localhost, two client certificates.
# Test material only; the keys are public. Valid for 100 years so the tests do not expire.
set -e
cd "$(dirname "$0")"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca-key.pem -out ca.pem -days 36500 -subj "/CN=zaakregister test CA"
for name in server client-a client-b; do
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$name-key.pem" -out "$name.csr" -subj "/CN=$name"
done
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > server.ext
printf 'extendedKeyUsage=clientAuth\n' > client.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out server.pem -days 36500 -extfile server.ext
for name in client-a client-b; do
  openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out "$name.pem" -days 36500 -extfile client.ext
done
rm -f ./*.csr ./*.ext ca.srl
# A second, unrelated CA and a server certificate of it: an issuer trusted through NODE_EXTRA_CA_CERTS
# beside one trusted through fetch.caFile.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout other-ca-key.pem -out other-ca.pem -days 36500 -subj "/CN=zaakregister other test CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout other-server-key.pem -out other-server.csr -subj "/CN=other-server"
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' > server.ext
openssl x509 -req -in other-server.csr -CA other-ca.pem -CAkey other-ca-key.pem -CAcreateserial -out other-server.pem -days 36500 -extfile server.ext
rm -f ./*.csr ./*.ext other-ca.srl
