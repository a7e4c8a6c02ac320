import Foundation

/// Reads what a child process wrote to a file.
public enum TextFile {
    /// The file's bytes as UTF-8 text (invalid bytes repaired).
    ///
    /// Read through a `FileHandle`: `String(contentsOf:encoding:)` and `Data(contentsOf:)` leak a 4 KiB
    /// buffer for every empty file they read in this toolchain's Foundation (Tools/Memory/empty_file_string_leak.swift),
    /// which AddressSanitizer's exit-time leak check reports.
    ///
    /// - Throws: What opening or reading the file throws.
    public static func read(_ url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
    }
}
