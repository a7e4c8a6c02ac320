import Foundation
import FuzzSupport
@_spi(Fuzzing) import SluiceCache
import SluiceCore

/// libFuzzer's entry point: SluiceCache's readings of a response's header fields — HTTP dates (`Date`,
/// `Expires`, `Last-Modified`), `Age`, `Cache-Control` and `Vary` — as bytes a server chose.
///
/// The input is a status choice, then up to six fields, each a choice of name and a value of up to 80 bytes,
/// then a request's `Cache-Control` value.
///
/// A failure is a crash, a sanitizer report, a timeout, or one of these broken properties: a lifetime and
/// an age that are finite and not negative; a heuristic lifetime of at most a week; a `max-age` between 0 and
/// 2^31; a date that parses formats to an IMF-fixdate that parses back to the same instant.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let statuses = [200, 203, 204, 301, 302, 304, 404, 500, 206, 100]
    let status = statuses[input.int(in: 0...(statuses.count - 1))]
    let names = ["Cache-Control", "Date", "Expires", "Last-Modified", "Age", "Vary", "ETag", "Pragma"]
    var fields = HTTPHeaders()
    for _ in 0..<input.int(in: 0...6) {
        let name = names[input.int(in: 0...(names.count - 1))]
        let value = input.string(upTo: 80)
        if let field = try? HTTPHeader(name: name, value: value) { fields.add(field) }
        if let date = CacheHeaderReading.date(value) {
            let again = CacheHeaderReading.date(CacheHeaderReading.format(date))
            guard again == date else { propertyFailed("\(value.debugDescription) → \(date) formats to a date that reads back as \(String(describing: again))") }
        }
    }
    var requestFields = HTTPHeaders()
    if let field = try? HTTPHeader(name: "Cache-Control", value: input.string(upTo: 80)) { requestFields.add(field) }
    let reading = CacheHeaderReading.read(status: status, fields: fields, requestFields: requestFields)
    guard reading.lifetime.isFinite, reading.lifetime >= 0, reading.age.isFinite, reading.age >= 0 else {
        propertyFailed("lifetime \(reading.lifetime), age \(reading.age) for \(fields)")
    }
    if reading.heuristic, reading.lifetime > 7 * 86_400 { propertyFailed("heuristic lifetime \(reading.lifetime)") }
    if let maxAge = reading.maxAge, !(0...(1 << 31)).contains(maxAge) { propertyFailed("max-age \(maxAge)") }
    _ = reading.storable
    _ = reading.plan
    return 0
}
