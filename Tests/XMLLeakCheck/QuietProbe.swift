import CLibXML2
import Dispatch
import Foundation
import SluiceCore
import SluiceXML

/// `sluice-xml-leakcheck quiet`: parses documents libxml2 complains about (bytes its encoding converter
/// refuses, bad XPath) with every SluiceXML API, on this thread and then on many at once, and prints one
/// `RESULT api<TAB>code<TAB>message` line per parse; SluiceXMLTests runs it as a child process and checks
/// that nothing reached standard error and that each error carries libxml2's message. Then sets a
/// structured error handler of its own on this thread and prints `OWN HANDLER calls-during=N calls-after=M`:
/// Sluice's parses must leave it alone (0) and in place (1 after one error outside Sluice).
enum QuietProbe {
    /// UTF-7 declared, then a byte that no UTF-7 converter accepts.
    static let hostile = Data(#"<?xml version="1.0" encoding="UTF-7"?><a>"#.utf8) + Data([0xFF]) + Data("</a>".utf8)

    /// The same with the bad byte after the root element, where only the converter can object to it.
    static let hostileAfterRoot = Data(#"<?xml version="1.0" encoding="UTF-7"?><a/>"#.utf8) + Data([0xFF])

    static let good = Data(#"<?xml version="1.0" encoding="UTF-8"?><a><b>text</b></a>"#.utf8)

    /// One parse's outcome as a line.
    static func line(_ api: String, _ outcome: Result<Void, SluiceError>) -> String {
        switch outcome {
        case .success: "RESULT \(api)\tparsed\t"
        case .failure(let error):
            "RESULT \(api)\t\(error.code.rawValue)\t\((error.xmlDiagnostic?.message ?? error.message).replacingOccurrences(of: "\n", with: " "))"
        }
    }

    static func run(_ body: () throws -> Void) -> Result<Void, SluiceError> {
        do {
            try body()
            return .success(())
        } catch let error as SluiceError {
            return .failure(error)
        } catch {
            return .failure(SluiceError("probe.unexpected", "\(error)"))
        }
    }

    /// Every synchronous parse API on `data`, named `prefix.api`.
    static func synchronous(_ data: Data, _ prefix: String) -> [String] {
        var lines: [String] = []
        lines.append(line("\(prefix).XMLTree", run { _ = try XMLTree(parsing: data) }))
        lines.append(line("\(prefix).XMLEventParser.parse", run { try XMLEventParser.parse(data) { _ in } }))
        for chunk in [1, 7, 1 << 16] {
            lines.append(line("\(prefix).XMLEventParser.feed\(chunk)", run {
                let parser = try XMLEventParser { _ in }
                for start in stride(from: 0, to: data.count, by: chunk) { try parser.feed(data[start..<min(start + chunk, data.count)]) }
                try parser.finish()
            }))
            lines.append(line("\(prefix).XMLBorrowedEventParser.feed\(chunk)", run {
                let parser = try XMLBorrowedEventParser { _ in }
                for start in stride(from: 0, to: data.count, by: chunk) { try parser.feed(data[start..<min(start + chunk, data.count)]) }
                try parser.finish()
            }))
        }
        lines.append(line("\(prefix).XMLBorrowedEventParser.parse", run { try XMLBorrowedEventParser.parse(data) { _ in } }))
        lines.append(line("\(prefix).XMLResponseSerializer", run {
            _ = try XMLResponseSerializer().serialize(
                request: nil, response: HTTPResponse(statusCode: 200, headers: ["Content-Type": "application/xml"]), body: data)
        }))
        return lines
    }

    /// The chunks of `data`, `size` bytes each.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = Data
        let data: Data
        let size: Int
        func makeAsyncIterator() -> AsyncStream<Data>.Iterator {
            AsyncStream { continuation in
                for start in stride(from: 0, to: data.count, by: size) { continuation.yield(data[start..<Swift.min(start + size, data.count)]) }
                continuation.finish()
            }.makeAsyncIterator()
        }
    }

    /// The streaming APIs, and XPath on whatever tree they build.
    static func streaming(_ data: Data, _ prefix: String) async -> [String] {
        var lines: [String] = []
        for size in [1, 1 << 16] {
            do {
                let tree = try await XMLTree.parse(Chunks(data: data, size: size))
                lines.append(line("\(prefix).XMLTree.parse\(size)", .success(())))
                lines.append(line("\(prefix).XMLTree.parse\(size).xpath", run { _ = try tree.xpath("//a") }))
            } catch {
                lines.append(line("\(prefix).XMLTree.parse\(size)", .failure(error)))
            }
            let events: Result<Void, SluiceError>
            do {
                try await XMLEventParser.parse(Chunks(data: data, size: size)) { _ in }
                events = .success(())
            } catch {
                events = .failure(error)
            }
            lines.append(line("\(prefix).XMLEventParser.parseChunks\(size)", events))
            let borrowed: Result<Void, SluiceError>
            do {
                try await XMLBorrowedEventParser.parse(Chunks(data: data, size: size)) { _ in }
                borrowed = .success(())
            } catch {
                borrowed = .failure(error)
            }
            lines.append(line("\(prefix).XMLBorrowedEventParser.parseChunks\(size)", borrowed))
        }
        return lines
    }

    /// XPath expressions libxml2 reports errors for, some through its generic channel.
    static func xpath() -> [String] {
        guard let tree = try? XMLTree(parsing: good) else { return ["RESULT xpath.tree\tfailed\t"] }
        return ["nosuchfunction()", "//[", "$undefined", "//x:a", "1 +", "substring()"].map { expression in
            line("xpath \(expression)", run { _ = try tree.xpath(expression) })
        }
    }

    static func main() async {
        var lines: [String] = []
        for (name, data) in [("hostile", hostile), ("afterRoot", hostileAfterRoot), ("good", good)] {
            lines += synchronous(data, name)
            lines += await streaming(data, name)
        }
        lines += xpath()
        lines.forEach { print($0) }

        // Many threads at once, each parsing the hostile document and a good one in turn: each parse
        // must see its own outcome only.
        let threads = 8
        let outcomes = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            var mine: [String] = []
            for round in 0..<20 {
                let data = round % 2 == 0 ? hostile : good
                mine += synchronous(data, round % 2 == 0 ? "threads.hostile" : "threads.good")
            }
            outcomes.withLock { $0 += mine }
        }
        outcomes.withLock { $0 }.forEach { print($0) }

        // A handler of the program's own on this thread: Sluice's parses neither call nor replace it.
        xmlSetStructuredErrorFunc(nil, ownHandler)
        _ = synchronous(hostile, "own")
        let during = ownCalls.withLock { $0 }
        // An error raised outside Sluice, with no parser context: it reaches whatever handler is set.
        if let document = xmlReadMemory("<a>", 3, nil, nil, 0) { xmlFreeDoc(document) }
        let after = ownCalls.withLock { $0 }
        xmlSetStructuredErrorFunc(nil, nil)
        print("OWN HANDLER calls-during=\(during) calls-after=\(after)")
    }

    static let ownCalls = Locked(0)
}

private let ownHandler: xmlStructuredErrorFunc = { _, _ in QuietProbe.ownCalls.withLock { $0 += 1 } }
