import Foundation
import SluiceCore

extension TLSConfiguration.ClientIdentity {
    /// An identity for mutual TLS from a PEM certificate file (the certificate, then any
    /// intermediates) and a PEM private key file, encrypted or not.
    ///
    /// - Parameters:
    ///   - certificateFile: The certificate chain, PEM.
    ///   - privateKeyFile: The private key, PEM.
    ///   - passphrase: The key's passphrase when it is encrypted. Default `nil`.
    /// - Throws: ``SluiceError/Code/invalidClientIdentity`` when a file cannot be read or the certificate
    ///   file holds no PEM certificate. A wrong passphrase, or a key that does not belong to the
    ///   certificate, shows when a server asks for the identity: the task fails with the same code.
    public init(certificateFile: String, privateKeyFile: String, passphrase: String? = nil) throws(SluiceError) {
        guard let certificate = FileManager.default.contents(atPath: certificateFile) else {
            throw SluiceError(.invalidClientIdentity, "cannot read the client certificate \(certificateFile)")
        }
        guard let key = FileManager.default.contents(atPath: privateKeyFile) else {
            throw SluiceError(.invalidClientIdentity, "cannot read the client key \(privateKeyFile)")
        }
        guard certificate.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            throw SluiceError(.invalidClientIdentity, "\(certificateFile) holds no PEM certificate")
        }
        self.init(certificatePEM: certificate, privateKeyPEM: key, passphrase: passphrase)
    }
}
