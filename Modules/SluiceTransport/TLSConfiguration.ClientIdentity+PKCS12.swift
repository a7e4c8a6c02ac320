import CCurl
import Foundation
import SluiceCore

extension TLSConfiguration.ClientIdentity {
    /// The identity in a PKCS#12 archive (a `.p12` or `.pfx` file: a certificate, its chain and its
    /// private key, protected by a passphrase), as URLSession's `SecPKCS12Import` and curl's `--cert-type P12`
    /// read it. The archive is opened here, so a wrong passphrase is an error now, not at the first
    /// handshake; the identity then holds the certificate chain and the key as PEM.
    ///
    /// - Parameters:
    ///   - pkcs12: The archive's bytes (DER).
    ///   - passphrase: Its passphrase. Default `""` (an archive without one).
    /// - Throws: ``SluiceError/Code/invalidClientIdentity`` when the bytes are no PKCS#12 archive, the
    ///   passphrase is wrong, or the archive lacks a certificate or a private key.
    public init(pkcs12: Data, passphrase: String = "") throws(SluiceError) {
        var certificates: UnsafeMutablePointer<CChar>?
        var key: UnsafeMutablePointer<CChar>?
        var certificatesLength = 0
        var keyLength = 0
        let result = pkcs12.withUnsafeBytes { bytes in
            passphrase.withCString { phrase in
                sluice_pkcs12_to_pem(
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, phrase,
                    &certificates, &certificatesLength, &key, &keyLength)
            }
        }
        defer {
            free(certificates)
            if let key {
                // The key's clear text goes no further than the identity's own copy.
                memset(key, 0, keyLength)
                free(key)
            }
        }
        switch result {
        case 0:
            break
        case 1:
            throw SluiceError(.invalidClientIdentity, "the PKCS#12 archive cannot be read: not PKCS#12, or a wrong passphrase")
        case 2:
            throw SluiceError(.invalidClientIdentity, "the PKCS#12 archive holds no certificate or no private key")
        default:
            throw SluiceError(.invalidClientIdentity, "the PKCS#12 archive could not be converted (out of memory)")
        }
        guard let certificates, let key else {
            throw SluiceError(.invalidClientIdentity, "the PKCS#12 archive could not be converted")
        }
        self.init(
            certificatePEM: Data(bytes: certificates, count: certificatesLength),
            privateKeyPEM: Data(bytes: key, count: keyLength))
    }

    /// The identity in the PKCS#12 file at `path` (see ``init(pkcs12:passphrase:)``).
    ///
    /// - Parameters:
    ///   - path: The `.p12` or `.pfx` file.
    ///   - passphrase: Its passphrase. Default `""`.
    /// - Throws: ``SluiceError/Code/invalidClientIdentity`` when the file cannot be read, or as
    ///   ``init(pkcs12:passphrase:)``.
    public init(pkcs12File path: String, passphrase: String = "") throws(SluiceError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SluiceError(.invalidClientIdentity, "cannot read the PKCS#12 file \(path)")
        }
        try self.init(pkcs12: data, passphrase: passphrase)
    }
}
