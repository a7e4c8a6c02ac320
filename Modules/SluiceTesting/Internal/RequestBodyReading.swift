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
        // A stream's read may block until its producer catches up (an async sequence's does), so the
        // reads run on a thread of their own, never on the cooperative pool the producer may need.
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data, SluiceError>, Never>) in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(SluiceError) -> Data in
                    try Self.readAll(stream, request: request, context: context)
                })
            }
        }
        return try result.get()
    }

    private static func readAll(_ stream: any BodyStream, request: HTTPRequest, context: HTTPLayerContext) throws(SluiceError) -> Data {
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            if context.task?.isCancelled == true { throw SluiceError(.cancelled, "the task was cancelled", request: request) }
            if let delay = stream.delayBeforeNextRead() {
                Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            }
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
