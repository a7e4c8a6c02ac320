import Foundation
import Sluice

/// `multipart.layout`: the exact bytes of multipart bodies — boundaries, part headers, parameters
/// first, escaping of names, every part kind — their Content-Type and Content-Length, and the errors
/// bad parts are refused with. Vectors: `multipart/layout.json`.
struct MultipartSuite: ConformanceSuite {
    var name: String { "multipart.layout" }
    var summary: String { "multipart/form-data bodies byte for byte, lengths, refusals (AFNetworking's layout)" }
    let requirements: ConformanceRequirements = .vectors

    struct Vectors: Decodable {
        struct Part: Decodable {
            let kind: String
            let name: String?
            let text: String?
            let base64: String?
            let fileName: String?
            let mimeType: String?
            let path: String?
            let url: String?
            let headers: [[String]]?
            let declaredLength: Int64?
            let missing: Bool?
            let directory: Bool?

            var bytes: Data { base64.flatMap { Data(base64Encoded: $0) } ?? Data((text ?? "").utf8) }
        }
        struct Expect: Decodable {
            let body: String?
            let bodyBase64: String?
            let contentType: String?
            let contentLength: Int64?
            let error: String?
        }
        struct Case: Decodable {
            let id: String
            let method: String
            let url: String
            let boundary: String
            let parameters: VectorParameters?
            let parts: [Part]
            let expect: Expect
        }
        let cases: [Case]
    }

    func run(in context: ConformanceContext) throws -> [CaseResult] {
        let vectors = try context.requireVectors().load(Vectors.self, from: "multipart/layout.json")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("sluice-multipart-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try vectors.cases.map { try check($0, files: directory) }
    }

    private func check(_ vector: Vectors.Case, files: URL) throws -> CaseResult {
        let serializer = HTTPRequestSerializer(environment: ["LANG": "en_US.UTF-8"], applicationName: "conformance", applicationVersion: "1")
        guard let boundary = MultipartBoundary(vector.boundary) else {
            throw ConformanceError("\(vector.id): invalid boundary \(vector.boundary)")
        }
        for part in vector.parts where !Self.kinds.contains(part.kind) {
            throw ConformanceError("\(vector.id): unknown part kind \(part.kind)")
        }
        let caseFiles = files.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: caseFiles, withIntermediateDirectories: true)
        let outcome: String
        do throws(SluiceError) {
            let request = try serializer.multipartFormRequest(
                method: HTTPMethod(rawValue: vector.method), urlString: vector.url,
                parameters: vector.parameters?.value, boundary: boundary
            ) { (form) throws(SluiceError) in
                for part in vector.parts { try Self.append(part, to: form, files: caseFiles) }
            }
            let body: Data
            switch request.body {
            case .bytes(let data): body = data
            case .stream(let stream): body = Data(try stream.readAll(chunkSize: 7))
            default: body = Data()
            }
            var declared = request.headers["Content-Length"].flatMap { Int64($0) } ?? -1
            if declared < 0 { declared = try request.body.contentLength() ?? -1 }
            outcome = Self.describe(body: body, contentType: request.headers["Content-Type"], length: declared)
        } catch {
            outcome = "error \(error.code)"
        }
        let expected: String
        if let error = vector.expect.error {
            expected = "error \(error)"
        } else {
            let body = vector.expect.bodyBase64.flatMap { Data(base64Encoded: $0) } ?? Data((vector.expect.body ?? "").utf8)
            expected = Self.describe(body: body, contentType: vector.expect.contentType, length: vector.expect.contentLength ?? -1)
        }
        return .expect(vector.id, outcome, equals: expected)
    }

    private static let kinds: Set<String> = ["field", "data", "stream", "file", "headers"]

    private static func append(_ part: Vectors.Part, to form: any MultipartFormData, files: URL) throws(SluiceError) {
        let name = part.name ?? ""
        switch part.kind {
        case "field":
            form.appendPart(formData: part.bytes, name: name)
        case "data":
            try form.appendPart(data: part.bytes, name: name, fileName: part.fileName ?? "", mimeType: part.mimeType ?? "")
        case "stream":
            try form.appendPart(
                stream: DataBodyStream(part.bytes), length: part.declaredLength ?? Int64(part.bytes.count), name: name,
                fileName: part.fileName ?? "", mimeType: part.mimeType ?? "")
        case "file":
            let url: URL
            if let text = part.url, let remote = URL(string: text) {
                url = remote
            } else {
                url = files.appendingPathComponent(part.path ?? "file")
                if part.directory == true {
                    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
                } else if part.missing != true {
                    _ = FileManager.default.createFile(atPath: url.path, contents: part.bytes)
                }
            }
            if let fileName = part.fileName, let mimeType = part.mimeType {
                try form.appendPart(fileURL: url, name: name, fileName: fileName, mimeType: mimeType)
            } else {
                try form.appendPart(fileURL: url, name: name)
            }
        case "headers":
            var headers = HTTPHeaders()
            for pair in part.headers ?? [] where pair.count == 2 { try headers.add(name: pair[0], value: pair[1]) }
            try form.appendPart(headers: headers, body: .bytes(part.bytes))
        default:
            break  // refused by check(_:files:) before the form is built
        }
    }

    private static func describe(body: Data, contentType: String?, length: Int64) -> String {
        let text = String(data: body, encoding: .utf8)?.debugDescription ?? "base64:" + body.base64EncodedString()
        return "body \(text) | content-type \(contentType ?? "none") | length \(length) (\(body.count) bytes)"
    }
}
