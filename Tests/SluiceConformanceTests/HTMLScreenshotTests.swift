import Foundation
import SluiceConformance
import SluiceTestSupport
import Testing

/// The HTML report as a person sees it: rendered by headless Chromium (Debian's
/// `chromium-headless-shell`, which `Tools/testenv/install.sh` installs), the screenshot read back
/// pixel by pixel.
@Suite("sluice-conformance HTML report in a browser", .tags(.slow), .runsLong)
struct HTMLScreenshotTests {
    /// Chromium's headless shell, or the full browser; `nil` when neither is installed.
    static var browser: String? {
        ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"].first(where: FileManager.default.isExecutableFile(atPath:))
    }

    /// Renders `html` at 1280 × `height` CSS pixels and returns the screenshot.
    static func screenshot(of html: String, height: Int = 1400) async throws -> PNGImage {
        guard let browser else {
            throw PNGImage.Unreadable(description: "no headless Chromium: run Tools/testenv/install.sh (chromium-headless-shell)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-html-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let page = directory.appendingPathComponent("report.html")
        let image = directory.appendingPathComponent("report.png")
        try html.write(to: page, atomically: true, encoding: .utf8)
        let run = try await ChildProcess.run(
            executable: "/usr/bin/timeout",
            arguments: [
                "60", browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                "--user-data-dir=\(directory.appendingPathComponent("profile").path)", "--window-size=1280,\(height)",
                "--screenshot=\(image.path)", page.absoluteString,
            ])
        guard run.status == 0, FileManager.default.fileExists(atPath: image.path) else {
            throw PNGImage.Unreadable(description: "\(browser) exited \(run.status) without a screenshot: \(run.errors.suffix(2000))")
        }
        return try PNGImage(contentsOf: image)
    }

    // The report's colours (HTMLRenderer's style sheet).
    static let failBanner: (UInt8, UInt8, UInt8) = (0xFF, 0xEB, 0xE9)
    static let passBanner: (UInt8, UInt8, UInt8) = (0xDA, 0xFB, 0xE1)
    static let expectedBar: (UInt8, UInt8, UInt8) = (0x2D, 0xA4, 0x4E)
    static let actualBar: (UInt8, UInt8, UInt8) = (0xCF, 0x22, 0x2E)

    @Test("a failing report renders: the FAIL banner, then the failure with expected beside actual, on the first screen")
    func failingReport() async throws {
        let image = try await Self.screenshot(of: ConformanceFormatTests.report.html)
        #expect(image.width >= 1280)
        #expect(image.colourCount > 50, "the page looks blank: \(image.colourCount) colours")
        let banner = image.rows(with: Self.failBanner, minimum: 400)
        #expect(banner.count >= 20, "no FAIL banner: \(banner.count) rows of its colour")
        #expect(image.rows(with: Self.passBanner, minimum: 400).isEmpty)
        // The expected and actual panes: a green and a red bar on the same rows, below the banner.
        let expected = Set(image.rows(with: Self.expectedBar, minimum: 3))
        let actual = Set(image.rows(with: Self.actualBar, minimum: 3))
        let sideBySide = expected.intersection(actual).sorted()
        #expect(sideBySide.count >= 15, "expected and actual are not shown side by side (\(sideBySide.count) rows)")
        if let first = sideBySide.first, let top = banner.first {
            #expect(first > top)
            #expect(first < image.height)
        }
    }

    @Test("a passing report renders with the PASS banner and no failure panes")
    func passingReport() async throws {
        let passing = ConformanceReport(
            sluiceVersion: "1.2.3", libcurl: "8.5.0", startedAt: "2025-01-01T00:00:00Z", serverSource: nil, vectorsDirectory: nil,
            suites: [.init(name: "core.headers", summary: "header names", error: nil, cases: [CaseResult(id: "plain", passed: true)], seconds: 0.1)])
        let image = try await Self.screenshot(of: passing.html, height: 900)
        #expect(image.rows(with: Self.passBanner, minimum: 400).count >= 20)
        #expect(image.rows(with: Self.failBanner, minimum: 400).isEmpty)
        #expect(Set(image.rows(with: Self.expectedBar, minimum: 3)).intersection(image.rows(with: Self.actualBar, minimum: 3)).isEmpty)
    }
}
