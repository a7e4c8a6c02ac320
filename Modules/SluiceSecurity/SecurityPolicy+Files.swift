import Foundation
import SluiceCore

extension SecurityPolicy {
    /// File name endings read by ``certificates(inDirectory:)``.
    public static let certificateFileExtensions: Set<String> = ["cer", "crt", "der", "pem"]

    /// Every certificate in the `.cer`, `.crt`, `.der` and `.pem` files of a directory (not its
    /// subdirectories; other files are skipped), DER each, files in name order: the Linux counterpart of AFNetworking's
    /// `certificatesInBundle:`.
    ///
    /// - Throws: ``SluiceError/Code/invalidCertificate`` when the directory cannot be listed, a file
    ///   cannot be read or parsed, or no file holds a certificate.
    public static func certificates(inDirectory directory: URL) throws(SluiceError) -> [Data] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw SluiceError(.invalidCertificate, "cannot list \(directory.path): \(error)", underlying: ForeignError(error))
        }
        var certificates: [Data] = []
        for name in names.sorted() where certificateFileExtensions.contains((name as NSString).pathExtension.lowercased()) {
            let path = directory.appendingPathComponent(name).path
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            certificates += try self.certificates(atPath: path)
        }
        guard !certificates.isEmpty else {
            throw SluiceError(.invalidCertificate, "\(directory.path) holds no certificate file")
        }
        return certificates
    }

    /// The certificates of one file, DER or PEM (a PEM bundle may hold many), DER each.
    ///
    /// - Throws: ``SluiceError/Code/invalidCertificate`` when the file cannot be read or holds no
    ///   certificate.
    public static func certificates(atPath path: String) throws(SluiceError) -> [Data] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SluiceError(.invalidCertificate, "cannot read \(path)")
        }
        return try certificates(from: data)
    }

    /// The certificates in `data`: one DER certificate, or PEM holding any number; DER each.
    ///
    /// - Throws: ``SluiceError/Code/invalidCertificate`` when the bytes are neither.
    public static func certificates(from data: Data) throws(SluiceError) -> [Data] {
        try CertificateDecoder.derCertificates(in: data, source: "the certificate data")
    }
}
