import Foundation
import FuzzSupport
import SluiceCore
import SluiceXML

/// libFuzzer's entry point: SluiceXML's three parsers on one document — the tree (`XMLTree`, then a
/// few XPath queries on it), the event parser (`XMLEventParser`, whole and pushed in chunks) and the
/// borrowing event parser (`XMLBorrowedEventParser`, pushed in chunks) — with their safety limits
/// (no DTD, entity declarations refused, 256 levels of nesting, text in pieces of at most 1 MiB).
///
/// The first byte gives the number of chunk sizes that follow; the rest is the document.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: only
/// `xml.malformed` and `xml.entityRefused` are thrown (`xml.xpathInvalid` by XPath); every parser
/// accepts or refuses the document alike (the two whole-document parses with the same code, and the two
/// pushed parses with the same code); the events do not depend on the
/// chunks (joining the borrowed parser's text pieces gives the same events); no element is deeper
/// than 256 and no text event longer than 1 MiB; the tree's root is the first element event.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let sizes = (0..<Int(input.byte() % 8)).map { _ in input.byte() }
    let document = input.rest()
    let body = Data(document)

    let tree = Result { () throws(SluiceError) in try XMLTree(parsing: body) }
    let whole = collect { handler throws(SluiceError) in try XMLEventParser.parse(body, handler: handler) }
    let pushed = collect { handler throws(SluiceError) in
        let parser = try XMLEventParser(handler: handler)
        for chunk in chunks(of: document, sizes: sizes) { try parser.feed(Data(chunk)) }
        try parser.finish()
    }
    let borrowed = collectBorrowed(document, sizes: sizes)

    let outcomes = [tree.map { _ in () }, whole.map { _ in () }, pushed.map { _ in () }, borrowed.map { _ in () }]
    for outcome in outcomes {
        if case .failure(let error) = outcome, error.code != .xmlMalformed, error.code != .xmlEntityRefused {
            propertyFailed("threw \(error.code): \(error.message)")
        }
    }
    // All accept or all refuse. A document both malformed and declaring an entity may be refused for
    // either, depending on which the parser meets first; the pull parsers and the push parsers each agree.
    let codes = outcomes.map { outcome -> SluiceError.Code? in if case .failure(let error) = outcome { error.code } else { nil } }
    guard Set(codes.map { $0 == nil }).count == 1, codes[0] == codes[1], codes[2] == codes[3] else {
        propertyFailed("the parsers disagree: \(codes)")
    }

    guard case .success(let events) = whole, case .success(let pushedEvents) = pushed, case .success(let pieces) = borrowed,
        case .success(let tree) = tree
    else { return 0 }
    guard events == pushedEvents else { propertyFailed("pushing in chunks \(sizes) changed the events") }
    guard joined(pieces) == joined(events) else { propertyFailed("the borrowed events differ") }
    var depth = 0
    for event in events {
        switch event {
        case .startElement:
            depth += 1
            if depth > 256 { propertyFailed("an element at depth \(depth)") }
        case .endElement:
            depth -= 1
        case .characters(let text), .cdata(let text):
            if text.utf8.count > XMLEvent.maximumTextBytes { propertyFailed("a text event of \(text.utf8.count) bytes") }
        default:
            break
        }
    }
    guard case .startElement(let name, _, _) = events.first(where: { if case .startElement = $0 { true } else { false } }),
        name == tree.root.name
    else { propertyFailed("the root is not the first element") }

    for expression in ["count(//*)", "//@*", "string(/*)", "//*[local-name()='a']/text()"] {
        do throws(SluiceError) {
            _ = try tree.xpath(expression)
        } catch {
            guard error.code == .xmlMalformed else { propertyFailed("XPath \(expression) threw \(error.code): \(error.message)") }
        }
    }
    _ = try? JSONEncoder().encode(tree)
    return 0
}

/// The events a parse delivers, or its error.
private func collect(_ parse: (@escaping (XMLEvent) throws(SluiceError) -> Void) throws(SluiceError) -> Void) -> Result<[XMLEvent], SluiceError> {
    let box = EventBox()
    do throws(SluiceError) {
        try parse { event in box.events.append(event) }
    } catch {
        return .failure(error)
    }
    return .success(box.events)
}

private func collectBorrowed(_ document: [UInt8], sizes: [UInt8]) -> Result<[XMLEvent], SluiceError> {
    let box = EventBox()
    do throws(SluiceError) {
        let parser = try XMLBorrowedEventParser { event in box.events.append(event.event) }
        for chunk in chunks(of: document, sizes: sizes) { try parser.feed(Data(chunk)) }
        try parser.finish()
    } catch {
        return .failure(error)
    }
    return .success(box.events)
}

private final class EventBox {
    var events: [XMLEvent] = []
}

/// The events with adjacent character pieces joined, and adjacent CDATA pieces joined.
private func joined(_ events: [XMLEvent]) -> [XMLEvent] {
    var result: [XMLEvent] = []
    for event in events {
        switch (result.last, event) {
        case (.characters(let previous)?, .characters(let text)):
            result[result.count - 1] = .characters(previous + text)
        case (.cdata(let previous)?, .cdata(let text)):
            result[result.count - 1] = .cdata(previous + text)
        default:
            result.append(event)
        }
    }
    return result
}
