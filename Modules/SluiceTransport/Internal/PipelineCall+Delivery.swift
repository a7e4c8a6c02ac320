import Foundation
import SluiceCore

#if canImport(Glibc)
import Glibc
#endif

extension PipelineCall {
    /// Delivers an answer's body where the caller asked, whatever form it came in: written once here,
    /// so a layer that answers from bytes, a file or a stream gets every destination.
    ///
    /// The network's own body is taken as it is (collected in memory, in the download's file, or in the
    /// stream the caller reads); another body is copied, its bytes counted in the task's progress. The
    /// body's observers see every part and the end.
    ///
    /// - Throws: ``SluiceError/Code/downloadFailed`` when a file cannot be read or written; what a
    ///   layer's stream ends with; ``SluiceError/Code/cancelled``.
    func deliver(_ answer: HTTPLayerResponse) async throws(SluiceError) -> DeliveredBody {
        let body = answer.body
        let counted = !answer.source.usedNetwork
        if counted {
            // The head a layer answered with is the task's response, as a network head would be.
            task.mutable.withLock { state in
                state.head = nil
                state.response = answer.response
            }
        }
        switch destination {
        case .memory:
            let data: Data
            if counted || !body.observers.isEmpty {
                data = try await body.collected(limit: Int.max) { [task] count, total in task.recordDelivered(count, of: total) }
            } else {
                data = body.data ?? Data()
            }
            return .data(data)
        case .file:
            return .file(try await deliverToFile(body, counted: counted))
        case .stream:
            // The caller's stream, made before the body is handed over: dropping it cancels the task.
            guard let buffer = target.streamBuffer else { preconditionFailure("a streamed call has a stream sink") }
            let stream = ByteStream(buffer: buffer)
            deliverToStream(answer, counted: counted)
            return .stream(stream)
        }
    }

    /// The file holding the body: the download's own, or a new temporary one with the body copied in.
    private func deliverToFile(_ body: HTTPLayerBody, counted: Bool) async throws(SluiceError) -> URL {
        if let own = body.owner, own === (sink as AnyObject), case .file(let url) = body.content {
            // The observers are told of the file's bytes as they are, then of the end.
            if !body.observers.isEmpty { try await body.forEachChunk { _, _ in } }
            return url
        }
        let path = FileSink.temporaryPath()
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw SluiceError(.downloadFailed, "cannot open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        do throws(SluiceError) {
            try await body.forEachChunk { [task] (chunk, total) throws(SluiceError) in
                try Self.write(chunk, to: descriptor, path: path)
                if counted { task.recordDelivered(chunk.count, of: total) }
            }
        } catch {
            unlink(path)
            throw error
        }
        return URL(fileURLWithPath: path)
    }

    /// Writes all of `chunk` to `descriptor`.
    private static func write(_ chunk: Data, to descriptor: Int32, path: String) throws(SluiceError) {
        try chunk.withUnsafeBytes { bytes in Result { () throws(SluiceError) in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw SluiceError(.downloadFailed, "cannot write \(path): \(String(cString: strerror(errno)))")
                }
                offset += count
            }
        } }.get()
    }

    /// Hands the body to the caller's stream: the network's own stream as it is; a whole body at once;
    /// a layer's file or stream copied in by a task of its own, at the reader's pace, stopped when the
    /// task is cancelled.
    private func deliverToStream(_ answer: HTTPLayerResponse, counted: Bool) {
        guard let buffer = target.streamBuffer else { return }
        let body = answer.body
        streamAnswered(answer)
        if let own = body.owner, own === buffer {
            if !body.observers.isEmpty { buffer.observe(body) }
            return
        }
        if case .data(let data) = body.content {
            body.notify(chunk: data)
            if counted { task.recordDelivered(data.count, of: Int64(data.count)) }
            data.withUnsafeBytes { buffer.append($0) }
            body.notify(end: .success(()))
            return streamBodyEnded(.success(()), transfer: nil)
        }
        let request = answer.request
        let pump = Task { [self, task] in
            do throws(SluiceError) {
                try await body.forEachChunk { (chunk, total) throws(SluiceError) in
                    if counted { task.recordDelivered(chunk.count, of: total) }
                    chunk.withUnsafeBytes { buffer.append($0) }
                    if buffer.pauseIfFull() { await waitForReader() }
                    if Task.isCancelled { throw SluiceError(.cancelled, "the task was cancelled", request: request) }
                }
                streamBodyEnded(.success(()), transfer: nil)
            } catch {
                streamBodyEnded(.failure(error), transfer: nil)
            }
        }
        // Weak: the hook is kept in the call's own state until a cancel, and a pump that ran to the end
        // leaves it there (held strongly, the call, its stream and the layer's body were never freed).
        whileWaiting { [weak self] in
            pump.cancel()
            self?.streamCanContinue()
        }
    }
}

extension HTTPLayerBody {
    /// The whole body, counting each part with `progress` (bytes, total when known).
    ///
    /// - Throws: As ``forEachChunk(_:)``; ``SluiceError/Code/downloadFailed`` past `limit` bytes.
    func collected(limit: Int, progress: (Int, Int64?) -> Void) async throws(SluiceError) -> Data {
        if case .data(let data) = content, observers.isEmpty {
            progress(data.count, Int64(data.count))
            return data
        }
        var result = Data()
        try await forEachChunk { (chunk, total) throws(SluiceError) in
            guard result.count + chunk.count <= limit else {
                throw SluiceError(.downloadFailed, "the body is longer than \(limit) bytes")
            }
            result.append(chunk)
            progress(chunk.count, total)
        }
        return result
    }
}
