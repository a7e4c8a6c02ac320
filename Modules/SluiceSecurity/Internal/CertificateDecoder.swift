import Crypto
import Foundation
import SluiceCore
import SwiftASN1
import X509

/// Certificates from bytes, and what pinning needs of them, through swift-certificates.
enum CertificateDecoder {
    /// The certificates in `data`, DER each: one DER certificate, or PEM holding any number of them.
    ///
    /// - Throws: ``SluiceError/Code/invalidCertificate`` when the bytes are neither, PEM holds no
    ///   certificate, or a certificate does not parse; `source` names them in the message.
    static func derCertificates(in data: Data, source: String) throws(SluiceError) -> [Data] {
        let looksLikePEM = data.range(of: Data("-----BEGIN".utf8)) != nil
        var candidates: [[UInt8]] = []
        if looksLikePEM {
            let text = String(decoding: data, as: UTF8.self)
            do {
                candidates = try PEMDocument.parseMultiple(pemString: text)
                    .filter { $0.discriminator == Certificate.defaultPEMDiscriminator }.map(\.derBytes)
            } catch {
                throw SluiceError(.invalidCertificate, "\(source) is not valid PEM: \(error)", underlying: ForeignError(error))
            }
            guard !candidates.isEmpty else {
                throw SluiceError(.invalidCertificate, "\(source) holds no PEM CERTIFICATE block")
            }
        } else {
            candidates = [Array(data)]
        }
        var certificates: [Data] = []
        for (index, der) in candidates.enumerated() {
            do {
                _ = try Certificate(derEncoded: der)
            } catch {
                let which = candidates.count > 1 ? "certificate \(index + 1) of \(source)" : source
                throw SluiceError(
                    .invalidCertificate, "\(which) is not an X.509 certificate swift-certificates can read: \(error)",
                    underlying: ForeignError(error))
            }
            certificates.append(Data(der))
        }
        return certificates
    }

    /// DER certificates as one PEM document.
    static func pem(_ certificates: [Data]) -> Data {
        Data(certificates.map { PEMDocument(type: Certificate.defaultPEMDiscriminator, derBytes: Array($0)).pemString + "\n" }
            .joined().utf8)
    }

    /// The certificate's public-key pin as libcurl writes it: `sha256//` and the base64 SHA-256 of its
    /// DER SubjectPublicKeyInfo.
    ///
    /// - Throws: ``SluiceError/Code/invalidCertificate`` when the certificate or its key cannot be read.
    static func publicKeyPin(of der: Data) throws(SluiceError) -> String {
        do {
            let certificate = try Certificate(derEncoded: Array(der))
            return publicKeyPin(of: certificate.publicKey)
        } catch {
            throw SluiceError(.invalidCertificate, "cannot read the certificate's public key: \(error)", underlying: ForeignError(error))
        }
    }

    /// `sha256//` and the base64 SHA-256 of the key's DER SubjectPublicKeyInfo.
    static func publicKeyPin(of key: Certificate.PublicKey) -> String {
        var serializer = DER.Serializer()
        // Serializing a key swift-certificates parsed cannot fail: it wrote the same structure to read it.
        try! serializer.serialize(key)
        return "sha256//" + Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
    }
}
