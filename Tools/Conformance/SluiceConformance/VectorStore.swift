import Foundation

/// The conformance vectors: JSON files under `Tests/Vectors/` that both `swift test` and
/// `sluice-conformance` read.
public struct VectorStore: Sendable {
    /// The `Tests/Vectors` directory.
    public let directory: URL

    /// Uses the vectors in `directory`.
    public init(directory: URL) { self.directory = directory }

    /// Finds the vectors: `explicit` when given, else `$SLUICE_VECTORS`, else the first `Tests/Vectors`
    /// holding `core/headers.json` found by walking up from `searchFrom` (default: the current directory),
    /// else one found by walking up from the running executable — in a Sluice checkout, or in the
    /// `.build/checkouts/<package>` of a package that depends on Sluice — so the tool works wherever it is
    /// run from.
    ///
    /// - Throws: ``ConformanceError`` when `explicit` (or `$SLUICE_VECTORS`) is not a directory, or when
    ///   no vectors directory is found.
    public static func locate(explicit: String? = nil, searchFrom: String? = nil) throws -> VectorStore {
        if let path = explicit ?? ProcessInfo.processInfo.environment["SLUICE_VECTORS"] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ConformanceError("vectors directory \(path) does not exist")
            }
            return VectorStore(directory: URL(fileURLWithPath: path))
        }
        let start = searchFrom ?? FileManager.default.currentDirectoryPath
        let marker = "Tests/Vectors/core/headers.json"
        if let found = FileLocator.findUpward(marker, from: start) ?? executableVectors(marker: marker) {
            let directory = URL(fileURLWithPath: found).deletingLastPathComponent().deletingLastPathComponent()
            return VectorStore(directory: directory)
        }
        throw ConformanceError(
            "no Tests/Vectors directory above \(start) or the sluice-conformance executable; "
                + "pass --vectors DIR or set SLUICE_VECTORS")
    }

    /// `marker` above the running executable, or in a package checkout under a `.build` above it.
    private static func executableVectors(marker: String) -> String? {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        let directory = executable.deletingLastPathComponent().path
        if let found = FileLocator.findUpward(marker, from: directory) { return found }
        return FileLocator.findInCheckouts(marker, above: directory)
    }

    /// Decodes the vector file at `relativePath` (for example `core/headers.json`).
    ///
    /// - Throws: ``ConformanceError`` when the file is missing or does not decode as `T`.
    public func load<T: Decodable>(_ type: T.Type, from relativePath: String) throws -> T {
        let url = directory.appendingPathComponent(relativePath)
        do {
            return try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
        } catch {
            throw ConformanceError("cannot load vectors \(url.path): \(error)")
        }
    }
}
