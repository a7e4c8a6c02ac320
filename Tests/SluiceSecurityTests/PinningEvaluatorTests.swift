import Foundation
import SluiceCore
import SluiceSecurity
import Testing

/// The evaluator a pinning policy hands the transport, fed chains directly.
@Suite("Pinning evaluation")
struct PinningEvaluatorTests {
    let certificates: TestCertificates

    init() throws { certificates = try TestCertificates() }

    func evaluator(_ mode: SSLPinningMode, _ pins: [Data], allowInvalid: Bool = false) throws -> any ServerTrustEvaluator {
        let policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: pins, allowInvalidCertificates: allowInvalid)
        return try #require(try policy.tlsConfiguration().serverTrustEvaluator)
    }

    func code(_ evaluator: any ServerTrustEvaluator, _ chain: [Data], verified: Bool) -> SluiceError.Code? {
        do {
            try evaluator.evaluate(ServerCertificateChain(certificates: chain, isVerified: verified, host: "localhost"))
            return nil
        } catch {
            return error.code
        }
    }

    @Test("a verified chain passes when its leaf, intermediate or root is pinned, in either mode")
    func verifiedChain() throws {
        let chain = [certificates.leaf, certificates.intermediate, certificates.root]
        for mode in [SSLPinningMode.certificate, .publicKey] {
            for pin in chain {
                #expect(code(try evaluator(mode, [pin]), chain, verified: true) == nil, "\(mode)")
            }
        }
        let other = try TestCertificates()
        #expect(code(try evaluator(.certificate, [other.root, other.leaf]), chain, verified: true) == .pinnedCertificateMissing)
        #expect(code(try evaluator(.publicKey, [other.root, other.leaf]), chain, verified: true) == .pinnedKeyMismatch)
    }

    @Test("public-key mode matches keys, not certificates: a reissued certificate with the pinned key passes")
    func reissued() throws {
        let reissued = try TestCertificates.make(
            subject: .init(), key: certificates.intermediateKey.publicKey, issuer: .init(), signer: certificates.intermediateKey,
            isCA: true)
        let chain = [certificates.leaf, certificates.intermediate]
        #expect(code(try evaluator(.publicKey, [reissued]), chain, verified: true) == nil)
        #expect(code(try evaluator(.certificate, [reissued]), chain, verified: true) == .pinnedCertificateMissing)
    }

    @Test("an unverified chain counts only certificates on a signed path from the leaf")
    func unverifiedChain() throws {
        let served = [certificates.leaf, certificates.intermediate]
        let intermediatePin = try evaluator(.publicKey, [certificates.intermediate], allowInvalid: true)
        #expect(code(intermediatePin, served, verified: false) == nil)
        #expect(code(try evaluator(.publicKey, [certificates.leaf], allowInvalid: true), served, verified: false) == nil)
        // A leaf the intermediate never signed, served with the genuine intermediate appended.
        let forged = [certificates.forgedLeaf, certificates.intermediate]
        #expect(code(intermediatePin, forged, verified: false) == .pinnedKeyMismatch)
        #expect(code(try evaluator(.certificate, [certificates.intermediate]), forged, verified: false) == .pinnedCertificateMissing)
        // The root is not served, so an unverified chain cannot reach it.
        #expect(code(try evaluator(.publicKey, [certificates.root], allowInvalid: true), served, verified: false) == .pinnedKeyMismatch)
        #expect(code(intermediatePin, [], verified: false) == .pinnedKeyMismatch)
    }

    @Test("refusals name the host and the number of pins")
    func messages() throws {
        let rootPin = try evaluator(.certificate, [certificates.root])
        do throws(SluiceError) {
            try rootPin.evaluate(
                ServerCertificateChain(certificates: [certificates.forgedLeaf], isVerified: true, host: "api.example.com"))
            Issue.record("accepted")
        } catch {
            #expect(error.code == .pinnedCertificateMissing)
            #expect(error.message.contains("api.example.com") && error.message.contains("1 pinned"))
        }
    }
}
