import Crypto
import Foundation
import SwiftASN1
import X509

/// Certificates made in memory for the tests that need no server: a root → intermediate → leaf chain,
/// and a leaf that names the intermediate as its issuer but was signed by another key.
struct TestCertificates {
    let rootKey = P256.Signing.PrivateKey()
    let intermediateKey = P256.Signing.PrivateKey()
    let leafKey = P256.Signing.PrivateKey()
    let forgerKey = P256.Signing.PrivateKey()
    let root: Data
    let intermediate: Data
    let leaf: Data
    /// Issued "by the intermediate" with the forger's key: its signature does not verify.
    let forgedLeaf: Data

    init() throws {
        let rootName = try DistinguishedName { CommonName("Sluice Unit Root") }
        let intermediateName = try DistinguishedName { CommonName("Sluice Unit Intermediate") }
        let leafName = try DistinguishedName { CommonName("localhost") }
        root = try Self.make(subject: rootName, key: rootKey.publicKey, issuer: rootName, signer: rootKey, isCA: true)
        intermediate = try Self.make(
            subject: intermediateName, key: intermediateKey.publicKey, issuer: rootName, signer: rootKey, isCA: true)
        leaf = try Self.make(subject: leafName, key: leafKey.publicKey, issuer: intermediateName, signer: intermediateKey, isCA: false)
        forgedLeaf = try Self.make(subject: leafName, key: forgerKey.publicKey, issuer: intermediateName, signer: forgerKey, isCA: false)
    }

    static func make(
        subject: DistinguishedName, key: P256.Signing.PublicKey, issuer: DistinguishedName, signer: P256.Signing.PrivateKey,
        isCA: Bool
    ) throws -> Data {
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: issuer, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(isCA ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : BasicConstraints.notCertificateAuthority)
            },
            issuerPrivateKey: .init(signer))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return Data(serializer.serializedBytes)
    }

    /// PEM text for DER certificates.
    static func pem(_ certificates: Data...) -> Data {
        Data(certificates.map { PEMDocument(type: "CERTIFICATE", derBytes: Array($0)).pemString + "\n" }.joined().utf8)
    }

    /// The pin libcurl would compute: swift-crypto's own SubjectPublicKeyInfo of the key.
    static func pin(_ key: P256.Signing.PublicKey) -> String {
        "sha256//" + Data(SHA256.hash(data: key.derRepresentation)).base64EncodedString()
    }
}
