import Foundation

/// The conformance vectors: JSON files under `Tests/Vectors/` that both `swift test` and
/// `sluice-conformance` read.
public struct VectorStore: Sendable {
    /// The `Tests/Vectors` directory.
    public let directory: URL

    /// Uses the vectors in `directory`.
    public init(directory: URL) { self.directory = directory }

    /// Finds the vectors: `explicit` when given, else `$SLUICE_VECTORS`, else a `Tests/Vectors` found
    /// by walking up from `searchFrom` (default: the current directory).
    ///
    /// - Throws: ``ConformanceError`` when no vectors directory is found.
    public static func locate(explicit: String? = nil, searchFrom: String? = nil) throws -> VectorStore {
        if let path = explicit ?? ProcessInfo.processInfo.environment["SLUICE_VECTORS"] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ConformanceError("vectors directory \(path) does not exist")
            }
            return VectorStore(directory: URL(fileURLWithPath: path))
        }
        let start = searchFrom ?? FileManager.default.currentDirectoryPath
        guard let found = FileLocator.findUpward("Tests/Vectors", from: start) else {
            throw ConformanceError(
                "no Tests/Vectors directory above \(start); pass --vectors or set SLUICE_VECTORS")
        }
        return VectorStore(directory: URL(fileURLWithPath: found))
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
