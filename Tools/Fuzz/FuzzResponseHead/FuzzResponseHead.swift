import Foundation
import FuzzSupport
@_spi(Fuzzing) import SluiceTransport
import SluiceCore

/// libFuzzer's entry point: the transport's response-head parser, fed header lines the way libcurl's
/// header callback hands them over (status line, field lines, the blank line that ends a head, interim
/// `1xx` heads before the final one), through the `ResponseHeadReading` entry point.
///
/// The first byte sets the interim-head cap (0 to 7); the rest is cut after each LF into lines, each
/// keeping its line end, as libcurl delivers them.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: a response
/// has a status of 0 or three digits; every field of a response passes `HTTPHeader(name:value:)`; no
/// more than one head per blank line; a response's expected length is the value of one of its
/// `Content-Length` fields.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let maximumInterimResponses = Int(input.byte() % 8)
    let body = input.rest()
    var lines: [[UInt8]] = []
    var start = 0
    for (index, byte) in body.enumerated() where byte == 0x0A {
        lines.append(Array(body[start...index]))
        start = index + 1
    }
    if start < body.count { lines.append(Array(body[start...])) }

    let (responses, _) = ResponseHeadReading.read(lines, maximumInterimResponses: maximumInterimResponses)
    let blankLines = lines.count { $0.allSatisfy { $0 == 0x0A || $0 == 0x0D } }
    guard responses.count <= blankLines else { propertyFailed("\(responses.count) heads from \(blankLines) blank lines") }
    for response in responses {
        guard response.statusCode == 0 || (100...999).contains(response.statusCode) else {
            propertyFailed("status \(response.statusCode)")
        }
        for field in response.headers {
            guard (try? HTTPHeader(name: field.name, value: field.value)) != nil else {
                propertyFailed("field \(field.description.debugDescription) does not pass HTTPHeader's checks")
            }
        }
        if let length = response.expectedContentLength {
            let values = response.headers.values(for: "Content-Length")
            guard values.contains(where: { $0.split(separator: ",").contains { Int64($0.trimmingCharacters(in: .whitespaces)) == length } }) else {
                propertyFailed("expected length \(length) from Content-Length fields \(values)")
            }
        }
        _ = (response.contentType, response.description, response.isSuccess)
    }
    return 0
}
