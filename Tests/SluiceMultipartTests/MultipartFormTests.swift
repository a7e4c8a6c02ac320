import Foundation
import SluiceCore
import SluiceMultipart
import SluiceRequestSerialization
import SluiceTestSupport
import Testing

/// A stream of given bytes that cannot start over (like a socket or a pipe).
final class OneShotStream: BodyStream, @unchecked Sendable {
    private var remaining: Data
    let contentLength: Int64?
    init(_ data: Data, declaring length: Int64? = nil) {
        remaining = data
        contentLength = length ?? Int64(data.count)
    }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int {
        let count = min(buffer.count, remaining.count)
        _ = remaining.prefix(count).copyBytes(to: buffer.bindMemory(to: UInt8.self))
        remaining.removeFirst(count)
        return count
    }
}

@Suite("Multipart forms")
struct MultipartFormTests {
    static let boundary = MultipartBoundary("Boundary+0123456789ABCDEF")!

    static func temporaryFile(_ contents: Data, name: String = "part.bin") throws -> URL {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sluice-mp-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try contents.write(to: url)
        return url
    }

    @Test("the body is the same whatever the read size, after a rewind, and its length is exact")
    func readSizes() throws {
        let file = try Self.temporaryFile(Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let form = StreamingMultipartFormData(boundary: Self.boundary)
        form.appendPart(formData: Data("field".utf8), name: "f")
        try form.appendPart(fileURL: file, name: "file")
        try form.appendPart(stream: DataBodyStream(Data(repeating: 9, count: 70_000)), length: 70_000, name: "s", fileName: "s", mimeType: "x/y")
        try form.appendPart(data: Data("tail".utf8), name: "d", fileName: "d.txt", mimeType: "text/plain")
        let stream = form.makeBodyStream()
        #expect(stream.isRewindable)
        let reference = try stream.readAll(chunkSize: 1 << 20)
        #expect(Int64(reference.count) == form.contentLength)
        for size in [1, 2, 3, 7, 64, 1000, 4096, 65_536, 300_001] {
            #expect(try stream.readAll(chunkSize: size) == reference, "chunk size \(size)")
        }
    }

    @Test("a non-rewindable stream part makes the body non-rewindable; it is sent once")
    func nonRewindable() throws {
        let form = StreamingMultipartFormData(boundary: Self.boundary)
        try form.appendPart(stream: OneShotStream(Data("once".utf8)), length: 4, name: "s", fileName: "s", mimeType: "text/plain")
        let stream = form.makeBodyStream()
        #expect(!stream.isRewindable)
        let body = try stream.readAll()
        #expect(String(decoding: body, as: UTF8.self).contains("\r\n\r\nonce\r\n--Boundary+0123456789ABCDEF--\r\n"))
        #expect(throws: SluiceError.self) { try stream.rewind() }
    }

    @Test("a file that changes after it was added: shrunk, removed, or grown")
    func fileChanges() throws {
        let file = try Self.temporaryFile(Data(repeating: 1, count: 10_000))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let form = StreamingMultipartFormData(boundary: Self.boundary)
        try form.appendPart(fileURL: file, name: "f")
        let length = form.contentLength

        try Data(repeating: 1, count: 20_000).write(to: file)  // grown: the size noted when added is sent
        #expect(Int64(try form.makeBodyStream().readAll().count) == length)

        try Data(repeating: 1, count: 5_000).write(to: file)
        let shrunk = #expect(throws: SluiceError.self) { try form.makeBodyStream().readAll() }
        #expect(shrunk?.code == .bodyLengthMismatch)

        try FileManager.default.removeItem(at: file)
        let removed = #expect(throws: SluiceError.self) { try form.makeBodyStream().readAll() }
        #expect(removed?.code == .bodyFileNotFound)
    }

    @Test("an unreadable file is refused when added")
    func unreadable() throws {
        let file = try Self.temporaryFile(Data("secret".utf8))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: file.path)
        // Root reads any file; only other users see the refusal.
        guard getuid() != 0 else {
            let form = StreamingMultipartFormData()
            try form.appendPart(fileURL: file, name: "f")
            #expect(form.partCount == 1)
            return
        }
        let error = #expect(throws: SluiceError.self) { try StreamingMultipartFormData().appendPart(fileURL: file, name: "f") }
        #expect(error?.code == .bodyFileUnreadable)
    }

    @Test("a throttled body comes in packets, each followed by the delay")
    func throttle() throws {
        let form = StreamingMultipartFormData(boundary: Self.boundary)
        form.appendPart(formData: Data(repeating: 65, count: 10_000), name: "big")
        form.throttleBandwidth(MultipartThrottle(packetSize: 1024, delay: .milliseconds(50)))
        let stream = form.makeBodyStream()
        #expect(stream.delayBeforeNextRead() == nil)
        var buffer = [UInt8](repeating: 0, count: 8192)
        let before = ContinuousClock.now
        let first = try buffer.withUnsafeMutableBytes { buffer in
            try Result { () throws(SluiceError) in try stream.read(into: buffer) }.get()
        }
        let delay = stream.delayBeforeNextRead()
        let elapsed = ContinuousClock.now - before
        #expect(first == 1024)
        // What is left of the 50 ms pause after the packet: the pause less the time between the read and the
        // question, which a busy machine may stretch (past the whole pause, nothing is left to wait).
        if elapsed < .milliseconds(50) {
            let left = try #require(delay)
            #expect(left >= .milliseconds(50) - elapsed && left <= .milliseconds(50))
        } else {
            #expect((delay ?? .zero) <= .milliseconds(50))
        }
        // Without the transport, readAll ignores the pacing and gets the same bytes in packets.
        let unthrottled = StreamingMultipartFormData(boundary: Self.boundary)
        unthrottled.appendPart(formData: Data(repeating: 65, count: 10_000), name: "big")
        #expect(try stream.readAll() == unthrottled.makeBodyStream().readAll())
        #expect(StreamingMultipartFormData().throttle == nil)
    }

    @Test("parts appended from many threads at once are all there")
    func concurrentAppends() throws {
        let form = StreamingMultipartFormData(boundary: Self.boundary)
        DispatchQueue.concurrentPerform(iterations: 500) { index in
            form.appendPart(formData: Data("value \(index)".utf8), name: "field\(index)")
        }
        #expect(form.partCount == 500)
        let body = String(decoding: try form.makeBodyStream().readAll(), as: UTF8.self)
        for index in 0..<500 { #expect(body.contains("name=\"field\(index)\"\r\n\r\nvalue \(index)\r\n")) }
    }

    @Test("MIME types: the system table, the built-in one, octet-stream otherwise; case ignored")
    func mimeTypes() throws {
        let system = MIMETypeTable.system
        #expect(system.mimeType(forPathExtension: "png") == "image/png")
        #expect(system.mimeType(forPathExtension: ".PNG") == "image/png")
        #expect(system.mimeType(forPath: "/tmp/report.final.JSON") == "application/json")
        #expect(system.mimeType(forPath: "/tmp/.hidden") == MIMETypeTable.fallbackType)
        #expect(system.mimeType(forPath: "/tmp/noextension") == "application/octet-stream")
        #expect(system.mimeType(forPathExtension: "nonsense-extension") == "application/octet-stream")
        // Only in Debian's media-types table: proof the system file is read.
        if FileManager.default.fileExists(atPath: "/etc/mime.types") {
            #expect(system.mimeType(forPathExtension: "srt") == "text/plain")
            #expect(system.mimeType(forPathExtension: "odt") == "application/vnd.oasis.opendocument.text")
        }
        let missing = MIMETypeTable(contentsOfFile: "/nonexistent/mime.types")
        #expect(missing.mimeType(forPathExtension: "srt") == "application/octet-stream")
        #expect(missing.mimeType(forPathExtension: "jpg") == "image/jpeg")
        let custom = MIMETypeTable(entries: [".Sluice": "application/x-sluice"])
        #expect(custom.mimeType(forPathExtension: "sluice") == "application/x-sluice")
    }

    @Test("writing the body to a file: the whole body, or nothing at all")
    func writeToFile() async throws {
        let serializer = HTTPRequestSerializer()
        let request = try serializer.multipartFormRequest(urlString: "http://example.com/upload", boundary: Self.boundary) { form in
            form.appendPart(formData: Data("v".utf8), name: "k")
            try form.appendPart(data: Data(repeating: 7, count: 100_000), name: "d", fileName: "d.bin", mimeType: "application/octet-stream")
        }
        let directory = try Self.temporaryFile(Data()).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appendingPathComponent("body.multipart")
        let written = try await serializer.request(request, writingBodyTo: target)
        guard case .file(let path, nil) = written.body, case .stream(let stream) = request.body else {
            Issue.record("expected a file body, got \(written.body)")
            return
        }
        #expect(path == target.path)
        #expect(try Data(contentsOf: target) == Data(try stream.readAll()))
        #expect(written.headers["Content-Type"] == request.headers["Content-Type"])

        // A file name that starts with a combining mark: "/\u{301}" is one Character, so a search for the
        // last "/" by Character split the path one directory too high.
        let marked = directory.appendingPathComponent("\u{301}marked.multipart")
        _ = try await serializer.request(request, writingBodyTo: marked)
        #expect(try Data(contentsOf: marked) == Data(contentsOf: target))
        try FileManager.default.removeItem(at: marked)

        // A part that fails midway leaves neither the target nor a temporary file.
        let failing = try serializer.multipartFormRequest(urlString: "http://example.com/upload") { form in
            try form.appendPart(stream: OneShotStream(Data("abc".utf8)), length: 10, name: "s", fileName: "s", mimeType: "text/plain")
        }
        let second = directory.appendingPathComponent("second.multipart")
        let error = await #expect(throws: SluiceError.self) { try await serializer.request(failing, writingBodyTo: second) }
        #expect(error?.code == .multipartPartEndedEarly)
        #expect(error?.request != nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["body.multipart", "part.bin"])

        let nowhere = URL(fileURLWithPath: "/nonexistent-directory/body")
        let unwritable = await #expect(throws: SluiceError.self) { try await serializer.request(request, writingBodyTo: nowhere) }
        #expect(unwritable?.code == .multipartWriteFailed)
        let notStream = await #expect(throws: SluiceError.self) {
            try await serializer.request(HTTPRequest(url: URL(string: "http://example.com")!), writingBodyTo: target)
        }
        #expect(notStream?.code == .multipartWriteFailed)
    }

    @Test("errors from the body-building closure: a SluiceError as it is, any other wrapped")
    func closureErrors() throws {
        struct Refused: Error {}
        let serializer = HTTPRequestSerializer()
        let foreign = #expect(throws: SluiceError.self) {
            try serializer.multipartFormRequest(urlString: "http://example.com/") { _ in throw Refused() }
        }
        #expect(foreign?.code == .multipartConstructionFailed)
        #expect(foreign?.underlying is ForeignError)
        let own = #expect(throws: SluiceError.self) {
            try serializer.multipartFormRequest(urlString: "http://example.com/") { form in
                try form.appendPart(fileURL: URL(string: "https://example.com/a.txt")!, name: "f")
            }
        }
        #expect(own?.code == .multipartNotAFileURL)
    }

    @Test("a part with a body range, and a stream without a length")
    func headersParts() throws {
        let file = try Self.temporaryFile(Data("0123456789".utf8))
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let form = StreamingMultipartFormData(boundary: Self.boundary)
        var headers = HTTPHeaders()
        try headers.set(name: "Content-Disposition", value: "form-data; name=\"slice\"")
        try form.appendPart(headers: headers, body: .file(path: file.path, range: 2..<6))
        try form.appendPart(headers: headers, body: .file(path: file.path, range: 0..<3))
        let text = String(decoding: try form.makeBodyStream().readAll(), as: UTF8.self)
        #expect(text.contains("\r\n\r\n2345\r\n--"))
        #expect(text.contains("\r\n\r\n012\r\n--Boundary+0123456789ABCDEF--\r\n"))
        #expect(Int64(text.utf8.count) == form.contentLength)

        final class Unsized: BodyStream, @unchecked Sendable {
            var contentLength: Int64? { nil }
            func read(into buffer: UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int { 0 }
        }
        let error = #expect(throws: SluiceError.self) { try form.appendPart(headers: headers, body: .stream(Unsized())) }
        #expect(error?.code == .multipartInvalidLength)
    }
}
