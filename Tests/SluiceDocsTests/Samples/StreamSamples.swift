import Foundation
import Sluice

// The samples of docs/streams.md, compiled.
func readLines(_ manager: HTTPSessionManager) async throws {
    let response = try await manager.bytes("stream/20")
    for try await line in response.value.lines {
        print(line)
    }
}

struct LogEntry: Decodable, Sendable {
    let id: Int
    let url: String
}

func readJSONLines(_ manager: HTTPSessionManager) async throws {
    let entries = try await manager.jsonLines("stream/20", as: LogEntry.self).value
    for try await entry in entries {
        print(entry.id, entry.url)
    }
}

func readJSONLinesFromASession(_ session: SessionManager, url: URL) async throws {
    let (stream, _) = try await session.bytes(for: HTTPRequest(url: url))
    for try await entry in stream.jsonLines(of: LogEntry.self) {
        print(entry.id)
    }
}

func handleMalformedLine(_ manager: HTTPSessionManager) async throws {
    do {
        for try await entry in try await manager.jsonLines("export.ndjson", as: LogEntry.self).value {
            print(entry.id)
        }
    } catch let error as SluiceError {
        if let line = error.underlying as? MalformedJSONLine {
            print("line \(line.lineNumber) is not a LogEntry: \(line.reason)")
        }
    }
}

func followEvents(_ session: SessionManager) async throws {
    let request = HTTPRequest(url: URL(string: "https://example.com/updates")!)
    for try await event in session.events(for: request) {
        switch event.type {
        case "price": print("price", event.data)
        default: print(event.type, event.data, event.lastEventID)
        }
    }
}

struct Price: Decodable, Sendable {
    let symbol: String
    let value: Double
}

func followDecodedEvents(_ manager: HTTPSessionManager) async throws {
    let stream = try manager.events("prices", reconnection: EventStream.Reconnection(limit: 10, delay: .seconds(1)))
    for try await price in stream.values(as: Price.self) {
        print(price.symbol, price.value)
    }
}

func uploadFromAsyncSequence(_ session: SessionManager, url: URL, total: Int64) async throws {
    let body = HTTPBody.asyncSequence(length: total) {
        AsyncThrowingStream<Data, any Error> { continuation in
            Task {
                var sent: Int64 = 0
                while sent < total {
                    let chunk = Data(count: Int(min(64 << 10, total - sent)))  // produced here: read, rendered, compressed…
                    continuation.yield(chunk)
                    sent += Int64(chunk.count)
                }
                continuation.finish()
            }
        }
    }
    let response = try await session.upload(for: HTTPRequest(url: url, method: .put), from: body)
    print(response.response.statusCode)
}

func uploadThroughTheManager(_ manager: HTTPSessionManager, chunks: AsyncThrowingStream<Data, any Error>) async throws {
    let response = try await manager.upload("imports", body: .asyncSequence(chunks), headers: ["Content-Type": "text/csv"])
    print(response.response.statusCode)
}
