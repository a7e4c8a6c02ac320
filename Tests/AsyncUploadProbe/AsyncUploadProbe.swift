import CSluiceHeap
import Crypto
import Foundation
import SluiceTransport

#if canImport(Glibc)
import Glibc
#endif

/// `sluice-async-upload-probe URL BYTES [chunked]`: uploads BYTES produced by an async sequence of 64 KiB
/// chunks to URL (the test server's /sluice/sha256, which hashes what it reads) with their length, or
/// chunked, and prints `{"status": …, "received": …, "serverSHA256": …, "localSHA256": …, "baselineKiB":
/// …, "peakKiB": …, "growthKiB": …, "heapInUseBeforeKiB": …, "heapInUsePeakKiB": …}`: the resident
/// memory before the upload and the process's peak after it, and the C heap in use before and at its
/// highest (sampled every 5 ms). Tools/testenv/check-async-upload-memory.sh runs it for make test.
@main
enum AsyncUploadProbe {
    static func residentKiB() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return -1 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return -1 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }

    static func main() async {
        let arguments = CommandLine.arguments
        guard arguments.count >= 3, let url = URL(string: arguments[1]), let total = Int64(arguments[2]) else {
            FileHandle.standardError.write(Data("usage: sluice-async-upload-probe URL BYTES [chunked]\n".utf8))
            exit(2)
        }
        let chunked = arguments.count > 3 && arguments[3] == "chunked"
        do {
            let session = SessionManager()
            // Warm up: the engine, its thread and libcurl's first allocations are not the upload's.
            _ = try await session.data(for: HTTPRequest(url: url, method: .post, body: .bytes(Data("warm".utf8))))
            let baseline = residentKiB()

            let chunkSize = 64 << 10
            var generator = SystemRandomNumberGenerator()
            let block = Data((0..<chunkSize).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let hash = Locked(SHA256())
            let produced = Locked<Int64>(0)
            let body = HTTPBody.asyncSequence(length: chunked ? nil : total) {
                AsyncThrowingStream<Data, any Error>(unfolding: {
                    let (index, size) = produced.withLock { produced -> (Int64, Int) in
                        let size = Int(min(Int64(chunkSize), total - produced))
                        defer { produced += Int64(size) }
                        return (produced / Int64(chunkSize), size)
                    }
                    guard size > 0 else { return nil }
                    var chunk = block.prefix(size)
                    // Each chunk differs from the others: its index in its first bytes.
                    withUnsafeBytes(of: index.littleEndian) { chunk.replaceSubrange(0..<min(8, size), with: $0.prefix(size)) }
                    hash.withLock { $0.update(data: chunk) }
                    return Data(chunk)
                })
            }
            let sampling = Locked((inUse: 0, fromSystem: 0, running: true))
            let sampler = Thread {
                while sampling.withLock({ $0.running }) {
                    let inUse = Int(sluice_heap_bytes_in_use() / 1024)
                    let system = Int(sluice_heap_bytes_from_system() / 1024)
                    sampling.withLock { $0.inUse = max($0.inUse, inUse); $0.fromSystem = max($0.fromSystem, system) }
                    usleep(5000)
                }
            }
            let heapBefore = (Int(sluice_heap_bytes_in_use() / 1024), Int(sluice_heap_bytes_from_system() / 1024))
            sampler.start()
            let result = try await session.upload(for: HTTPRequest(url: url, method: .post), from: body)
            let heapPeak = sampling.withLock { state -> (Int, Int) in
                state.running = false
                return (state.inUse, state.fromSystem)
            }
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let answer = try JSONSerialization.jsonObject(with: result.data) as? [String: Any] ?? [:]
            let local = hash.withLock { $0.finalize() }.map { String(format: "%02x", $0) }.joined()
            let peak = Int(usage.ru_maxrss)
            print("""
                {"status": \(result.response.statusCode), "received": \(answer["received"] as? Int ?? -1), \
                "serverSHA256": "\(answer["sha256"] as? String ?? "")", "localSHA256": "\(local)", \
                "chunked": \(chunked), "baselineKiB": \(baseline), "peakKiB": \(peak), "growthKiB": \(peak - baseline), \
                "heapInUseBeforeKiB": \(heapBefore.0), "heapInUsePeakKiB": \(heapPeak.0)}
                """)
        } catch {
            FileHandle.standardError.write(Data("sluice-async-upload-probe: \(error)\n".utf8))
            exit(1)
        }
    }
}
