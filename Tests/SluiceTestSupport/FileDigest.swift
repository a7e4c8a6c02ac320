import Foundation

/// SHA-256 digests computed by coreutils' `sha256sum`, an implementation independent of Sluice.
public enum FileDigest {
    /// The lowercase hex digest of the file at `path` (a 1 GiB file takes seconds: no thread is held
    /// meanwhile, see ``ChildProcess``).
    ///
    /// - Throws: What running `sha256sum` throws.
    public static func sha256(ofFile path: String) async throws -> String {
        let outcome = try await ChildProcess.run(executable: "/usr/bin/sha256sum", arguments: [path])
        return String(outcome.output.prefix(64))
    }

    /// The lowercase hex digest of `data` (written to a temporary file for `sha256sum`).
    ///
    /// - Throws: What writing the file or running `sha256sum` throws.
    public static func sha256(of data: Data) async throws -> String {
        let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sluice-sha256-\(UUID())")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await sha256(ofFile: file.path)
    }
}
