import Foundation

/// Finds files by walking up the directory tree.
package enum FileLocator {
    /// The first `start/relative`, `start/../relative`, ... that exists, or `nil`.
    package static func findUpward(_ relative: String, from start: String) -> String? {
        var directory = URL(fileURLWithPath: start).standardizedFileURL
        while true {
            let candidate = directory.appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
    }

    /// The first `D/checkouts/<any>/relative` that exists, for `D` = `start`, its parent, ...: where
    /// SwiftPM keeps the packages a package depends on (`.build/checkouts`), or `nil`.
    package static func findInCheckouts(_ relative: String, above start: String) -> String? {
        var directory = URL(fileURLWithPath: start).standardizedFileURL
        while true {
            let checkouts = directory.appendingPathComponent("checkouts")
            let packages = (try? FileManager.default.contentsOfDirectory(atPath: checkouts.path)) ?? []
            for package in packages.sorted() {
                let candidate = checkouts.appendingPathComponent(package).appendingPathComponent(relative).path
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
            }
            let parent = directory.deletingLastPathComponent()
            if parent.path == directory.path { return nil }
            directory = parent
        }
    }
}
