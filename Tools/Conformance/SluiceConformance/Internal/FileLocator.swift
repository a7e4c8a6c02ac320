import Foundation

/// Finds files by walking up the directory tree.
enum FileLocator {
    /// The first `start/relative`, `start/../relative`, ... that exists, or `nil`.
    static func findUpward(_ relative: String, from start: String) -> String? {
        var directory = URL(fileURLWithPath: start).standardizedFileURL
        while true {
            let candidate = directory.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
    }
}
