import Foundation
import SluiceTestSupport
import Testing

/// A new user's first program (Tests/FirstHourProgram: every getting-started call in one function) runs
/// against the test servers and gets what it asked for. That the compiler builds it, quickly, is the
/// build's check (`Tools/testenv/check-compile-time.sh`, run by `make test`).
@Suite("A new user's first program", .tags(.server), .needsServers)
struct FirstHourProgramTests {
    @Test("every call of the first program works against the test servers")
    func runs() async throws {
        _ = try Support.httpbin()  // fails with a clear message when the servers are absent
        let outcome = try await ChildProcess.run("sluice-first-hour")
        #expect(outcome.status == 0, "\(outcome.errors)")
        #expect(outcome.errors.isEmpty, "a program that asked for no logging wrote: \(outcome.errors)")
        let lines = outcome.output.split(separator: "\n").map(String.init)
        let expected = [
            "get 200 args,headers,origin,url", "untyped \"Lyon\"", "post Lyon 21.5",
            "put 200 patch 200 delete 200", "upload 200 1.0", "download 1048576 1048576", "stream 200 65536",
            "xml 200 slideshow", "404 404 0", "bad URL request.invalidURL", "retried 3 503",
            "headers \"first-hour\"", "basic 200", "callback 200", "blocking 200", "head 200 1",
        ]
        #expect(lines == expected)
    }
}
