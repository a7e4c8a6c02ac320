import CSluiceHeap
import Foundation
import SluiceMultipart
import SluiceTransport

#if canImport(Glibc)
import Glibc
#endif

/// `sluice-multipart-probe URL FILE`: uploads FILE as a multipart form part to URL through SluiceTransport
/// and prints `{"status": …, "bytes": <sent>, "peakKiB": <the process's peak RSS>}`, for
/// SluiceMultipartTests, which compares the peak of a 1 GiB and a 4 GiB upload (constant memory).
@main
enum MultipartMemoryProbe {
    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count == 3 else {
            FileHandle.standardError.write(Data("usage: sluice-multipart-probe URL FILE\n".utf8))
            exit(2)
        }
        do {
            let request = try HTTPRequestSerializer().multipartFormRequest(urlString: arguments[1]) { form in
                try form.appendPart(fileURL: URL(fileURLWithPath: arguments[2]), name: "file")
            }
            let result = try await SessionManager().data(for: request)
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let sent = result.metrics.transactions.last?.bytesSent ?? -1
            let inUse = sluice_heap_bytes_in_use() / 1024
            let fromSystem = sluice_heap_bytes_from_system() / 1024
            print("{\"status\": \(result.response.statusCode), \"bytes\": \(sent), \"peakKiB\": \(usage.ru_maxrss), \"heapInUseKiB\": \(inUse), \"heapFromSystemKiB\": \(fromSystem)}")
        } catch {
            FileHandle.standardError.write(Data("sluice-multipart-probe: \(error)\n".utf8))
            exit(1)
        }
    }
}
