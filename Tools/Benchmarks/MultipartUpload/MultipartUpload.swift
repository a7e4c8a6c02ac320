import Foundation
import SluiceCore
import SluiceMultipart
import SluiceRequestSerialization
import SluiceTransport

/// Uploads one file as a multipart form through SluiceTransport and prints
/// `{"operations": 1, "bytes": …, "seconds": …, "status": …}`; Tools/Benchmarks/multipart.sh runs it
/// beside `curl -F` on the same file.
///   multipart-upload URL FILE
@main
struct MultipartUpload {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: multipart-upload URL FILE\n".utf8))
            exit(2)
        }
        do {
            let request = try HTTPRequestSerializer().multipartFormRequest(urlString: arguments[1]) { form in
                try form.appendPart(fileURL: URL(fileURLWithPath: arguments[2]), name: "file")
            }
            let session = SessionManager()
            let started = ContinuousClock.now
            let result = try await session.data(for: request)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let bytes = result.metrics.transactions.last?.bytesSent ?? -1
            print("{\"operations\": 1, \"bytes\": \(bytes), \"seconds\": \(seconds), \"status\": \(result.response.statusCode)}")
        } catch {
            FileHandle.standardError.write(Data("multipart-upload: \(error)\n".utf8))
            exit(1)
        }
    }
}
