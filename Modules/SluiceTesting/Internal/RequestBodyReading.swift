import Foundation
import SluiceCore

/// A request body read whole, as a stub records and matches it.
enum RequestBodyReading {
    /// The bytes `body` produces; a stream that paces itself is waited for.
    ///
    /// - Throws: What the body's stream throws (``SluiceError/Code/bodyFileNotFound`` and the like);
    ///   ``SluiceError/Code/bodyLengthMismatch`` for a stream that ends before or runs past the length
    ///   it declared; ``SluiceError/Code/cancelled``.
    static func bytes(of body: HTTPBody, request: HTTPRequest, context: HTTPLayerContext) async throws(SluiceError) -> Data {
        switch body {
        case .none: return Data()
        case .bytes(let data): return data
        case .file, .stream: break
        }
        let stream = try body.makeStream()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            try context.checkCancellation(request)
            if let delay = stream.delayBeforeNextRead() { try? await Task.sleep(for: delay) }
            let read = buffer.withUnsafeMutableBytes { bytes in Result { () throws(SluiceError) in try stream.read(into: bytes) } }
            let count = try read.get()
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        if let declared = stream.contentLength, declared != Int64(data.count) {
            throw SluiceError(
                .bodyLengthMismatch, "the body stream declared \(declared) bytes and produced \(data.count)", request: request)
        }
        return data
    }
}
