import Foundation

/// SHA-256 digests computed by coreutils' `sha256sum`, an implementation independent of Sluice.
public enum FileDigest {
    /// The lowercase hex digest of the file at `path`.
    public static func sha256(ofFile path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: output, as: UTF8.self).prefix(64))
    }

    /// The lowercase hex digest of `data` (written to a temporary file for `sha256sum`).
    public static func sha256(of data: Data) throws -> String {
        let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sluice-sha256-\(UUID())")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try sha256(ofFile: file.path)
    }
}
