#!/usr/bin/env python3
"""Writes the TLS material for the test servers (run with the testenv venv's python).

Output directory: $SLUICE_TESTENV_DIR/certs, by default <repo>/.testenv/certs:

    ca.pem, ca.key        the test root CA (the key is kept so that chains added
                          later are issued by the same CA as the existing ones)
    server.pem            server leaf certificate + chain (no root)
    server.key            its private key
                          identities: 127.0.0.1, localhost, ::1
    client.pem            client leaf certificate + chain, for mutual TLS
    client.key            its private key
    client-encrypted.key  the same key, encrypted (PKCS#8) with the passphrase
    client.p12            the client certificate, its chain and key as a PKCS#12 archive, with the passphrase
                          CLIENT_KEY_PASSPHRASE below
    chain.pem, chain.key  root -> intermediate CA -> leaf (RSA key) for
                          127.0.0.1, localhost, ::1; the file holds the leaf
                          and the intermediate
    selfsigned.pem/.key   a self-signed leaf for 127.0.0.1, localhost, ::1
    wronghost.pem/.key    a leaf from the root for wrong-host.sluice.test only
    expired.pem/.key      a leaf from the root for 127.0.0.1 and localhost that
                          expired 30 days ago
    notyetvalid.pem/.key  a leaf from the root for 127.0.0.1 and localhost that
                          becomes valid in 30 days

Files are regenerated only when something is missing, no longer parses, is not
issued by the current CA, or expires within a day. If the CA itself has to be
regenerated, every chain issued by it is regenerated too.

To add a chain, add an entry to CHAINS: a Chain names its output files, how to
issue them, whether it is self-signed and whether it is meant to be expired or
not yet valid.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, List, Optional

import trustme
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)
from cryptography.x509.oid import NameOID

ROOT = Path(__file__).resolve().parent.parent.parent
TESTENV_DIR = Path(os.environ.get("SLUICE_TESTENV_DIR") or ROOT / ".testenv")
CERTS_DIR = TESTENV_DIR / "certs"

# Regenerate anything that expires within this margin.
MIN_REMAINING = dt.timedelta(days=1)
# Lifetime of issued leaf certificates (the CA uses trustme's defaults).
LEAF_LIFETIME = dt.timedelta(days=90)

CA_CERT = "ca.pem"
CA_KEY = "ca.key"
CLIENT_KEY_ENCRYPTED = "client-encrypted.key"
CLIENT_KEY_PASSPHRASE = b"sluice-test-passphrase"
CLIENT_PKCS12 = "client.p12"


def same_public_key(a, b) -> bool:
    spki = (Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return a.public_bytes(*spki) == b.public_bytes(*spki)


def now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def write_file(path: Path, data: bytes, private: bool = False) -> None:
    """Writes atomically; private files get mode 0600."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if private else 0o644)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def load_cert_chain(path: Path) -> List[x509.Certificate]:
    return x509.load_pem_x509_certificates(path.read_bytes())


def not_after(cert: x509.Certificate) -> dt.datetime:
    return cert.not_valid_after_utc


def still_valid(cert: x509.Certificate) -> bool:
    return not_after(cert) - now() > MIN_REMAINING


# --- The CA ------------------------------------------------------------------


def load_or_create_ca(out: Path) -> tuple[trustme.CA, bool]:
    """Returns the CA and whether it was (re)created."""
    cert_path, key_path = out / CA_CERT, out / CA_KEY
    try:
        cert_pem, key_pem = cert_path.read_bytes(), key_path.read_bytes()
        cert = x509.load_pem_x509_certificate(cert_pem)
        key = load_pem_private_key(key_pem, password=None)
        if not same_public_key(cert.public_key(), key.public_key()):
            raise ValueError("CA key does not match CA certificate")
        if not still_valid(cert):
            raise ValueError("CA expires soon")
        return trustme.CA.from_pem(cert_pem, key_pem), False
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as e:
        print(f"certs: replacing the test CA ({e})", file=sys.stderr)
    ca = trustme.CA(organization_name="Sluice Tests", organization_unit_name="Sluice Test CA")
    write_file(key_path, ca.private_key_pem.bytes(), private=True)
    write_file(cert_path, ca.cert_pem.bytes())
    return ca, True


# --- Chains ------------------------------------------------------------------


@dataclass
class Chain:
    """A certificate chain + key written to <name>.pem / <name>.key.

    issue: builds the trustme.LeafCert from the root CA (it may create
    intermediate CAs first). The written file holds the leaf and any
    intermediates; the last certificate in it must be signed by the root CA.
    extra_checks: further conditions for reusing existing files.
    """

    name: str
    issue: Callable[[trustme.CA], "trustme.LeafCert | SelfSigned"]
    extra_checks: List[Callable[[List[x509.Certificate]], bool]] = field(default_factory=list)
    # "valid" (usable for at least MIN_REMAINING), "expired" or "future" (not yet valid).
    validity: str = "valid"
    # A self-signed leaf is not issued by the root CA.
    self_signed: bool = False

    @property
    def cert_file(self) -> str:
        return f"{self.name}.pem"

    @property
    def key_file(self) -> str:
        return f"{self.name}.key"

    def is_fresh(self, out: Path, ca_cert: x509.Certificate) -> bool:
        try:
            chain = load_cert_chain(out / self.cert_file)
            key = load_pem_private_key((out / self.key_file).read_bytes(), password=None)
        except (OSError, ValueError):
            return False
        if not chain:
            return False
        leaf = chain[0]
        if not same_public_key(leaf.public_key(), key.public_key()):
            return False
        if self.validity == "expired":
            if not (not_after(leaf) < now() and all(still_valid(c) for c in chain[1:])):
                return False
        elif self.validity == "future":
            if not (leaf.not_valid_before_utc - now() > MIN_REMAINING and all(still_valid(c) for c in chain)):
                return False
        elif not all(still_valid(c) for c in chain):
            return False
        # The last certificate in the file must be signed by the root CA (or by itself).
        try:
            chain[-1].verify_directly_issued_by(chain[-1] if self.self_signed else ca_cert)
        except Exception:
            return False
        return all(check(chain) for check in self.extra_checks)

    def write(self, out: Path, ca: trustme.CA) -> None:
        leaf = self.issue(ca)
        write_file(out / self.key_file, leaf.private_key_pem.bytes(), private=True)
        write_file(out / self.cert_file, b"".join(blob.bytes() for blob in leaf.cert_chain_pems))


def leaf_validity() -> dict:
    start = now() - dt.timedelta(hours=1)
    return {"not_before": start, "not_after": start + LEAF_LIFETIME}


# The identities of the local test servers.
LOCAL_IDENTITIES = ("127.0.0.1", "localhost", "::1")


def issue_leaf(
    issuer: trustme.CA,
    identities: tuple = LOCAL_IDENTITIES,
    common_name: str = "localhost",
    validity: Optional[dict] = None,
    **extra,
) -> trustme.LeafCert:
    """A leaf from `issuer`; valid for LEAF_LIFETIME unless `validity` says otherwise."""
    return issuer.issue_cert(
        *identities,
        common_name=common_name,
        organization_name="Sluice Tests",
        **(validity or leaf_validity()),
        **extra,
    )


def validity_in_days(start: int, end: int) -> dict:
    """not_before and not_after, `start` and `end` days from now."""
    return {"not_before": now() + dt.timedelta(days=start), "not_after": now() + dt.timedelta(days=end)}


def issue_server(ca: trustme.CA) -> trustme.LeafCert:
    return issue_leaf(ca)


def issue_client(ca: trustme.CA) -> trustme.LeafCert:
    # trustme leaves carry both serverAuth and clientAuth extended key usage.
    return issue_leaf(ca, ("client.sluice.test",), common_name="sluice-test-client")


def issue_chain(ca: trustme.CA) -> trustme.LeafCert:
    # root -> intermediate -> leaf; the leaf has an RSA key, the CAs ECDSA keys.
    return issue_leaf(ca.create_child_ca(), organization_unit_name="Sluice chain leaf", key_type=trustme.KeyType.RSA)


def issue_wrong_host(ca: trustme.CA) -> trustme.LeafCert:
    return issue_leaf(ca, ("wrong-host.sluice.test",), common_name="wrong-host.sluice.test")


def issue_expired(ca: trustme.CA) -> trustme.LeafCert:
    return issue_leaf(ca, validity=validity_in_days(-60, -30))


def issue_not_yet_valid(ca: trustme.CA) -> trustme.LeafCert:
    return issue_leaf(ca, validity=validity_in_days(30, 120))


class SelfSigned:
    """A self-signed leaf (not a CA) with the same shape as trustme's LeafCert."""

    def __init__(self) -> None:
        key = ec.generate_private_key(ec.SECP256R1())
        name = x509.Name(
            [
                x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Sluice Tests"),
                x509.NameAttribute(NameOID.COMMON_NAME, "localhost"),
            ]
        )
        validity = leaf_validity()
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(validity["not_before"])
            .not_valid_after(validity["not_after"])
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.SubjectAlternativeName(
                    [
                        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                        x509.DNSName("localhost"),
                        x509.IPAddress(ipaddress.ip_address("::1")),
                    ]
                ),
                critical=False,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256())
        )
        self.private_key_pem = trustme.Blob(key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
        self.cert_chain_pems = [trustme.Blob(cert.public_bytes(Encoding.PEM))]


def issue_self_signed(ca: trustme.CA) -> SelfSigned:
    return SelfSigned()


CHAINS: List[Chain] = [
    Chain("server", issue_server),
    Chain("client", issue_client),
    Chain("chain", issue_chain, extra_checks=[lambda chain: len(chain) == 2]),
    Chain("selfsigned", issue_self_signed, self_signed=True),
    Chain("wronghost", issue_wrong_host),
    Chain("expired", issue_expired, validity="expired"),
    Chain("notyetvalid", issue_not_yet_valid, validity="future"),
]


def write_encrypted_client_key(out: Path) -> bool:
    """Writes client-encrypted.key unless it already holds client.key's key; returns whether it wrote."""
    key = load_pem_private_key((out / "client.key").read_bytes(), password=None)
    try:
        existing = load_pem_private_key((out / CLIENT_KEY_ENCRYPTED).read_bytes(), password=CLIENT_KEY_PASSPHRASE)
        if same_public_key(existing.public_key(), key.public_key()):
            return False
    except (OSError, ValueError, TypeError):
        pass
    encrypted = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(CLIENT_KEY_PASSPHRASE))
    write_file(out / CLIENT_KEY_ENCRYPTED, encrypted, private=True)
    return True


def write_client_pkcs12(out: Path) -> bool:
    """Writes client.p12 unless it already holds client.pem's certificate; returns whether it wrote."""
    from cryptography.hazmat.primitives.serialization import pkcs12

    chain = load_cert_chain(out / "client.pem")
    try:
        _, existing, _ = pkcs12.load_key_and_certificates((out / CLIENT_PKCS12).read_bytes(), CLIENT_KEY_PASSPHRASE)
        if existing is not None and existing == chain[0]:
            return False
    except (OSError, ValueError, TypeError):
        pass
    key = load_pem_private_key((out / "client.key").read_bytes(), password=None)
    archive = pkcs12.serialize_key_and_certificates(
        b"sluice-test-client", key, chain[0], chain[1:] or None, BestAvailableEncryption(CLIENT_KEY_PASSPHRASE))
    write_file(out / CLIENT_PKCS12, archive, private=True)
    return True


def main(argv: Optional[List[str]] = None) -> int:
    CERTS_DIR.mkdir(parents=True, exist_ok=True)
    ca, ca_created = load_or_create_ca(CERTS_DIR)
    ca_cert = x509.load_pem_x509_certificate(ca.cert_pem.bytes())
    written = []
    for chain in CHAINS:
        if ca_created or not chain.is_fresh(CERTS_DIR, ca_cert):
            chain.write(CERTS_DIR, ca)
            written.append(chain.name)
    if write_encrypted_client_key(CERTS_DIR):
        written.append("client-encrypted")
    if write_client_pkcs12(CERTS_DIR):
        written.append("client-p12")
    if written or ca_created:
        what = (["ca"] if ca_created else []) + written
        print(f"certs: wrote {', '.join(what)} in {CERTS_DIR}", file=sys.stderr)
    else:
        print(f"certs: up to date in {CERTS_DIR}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
