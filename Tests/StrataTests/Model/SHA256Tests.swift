import Foundation
import Testing

@testable import Strata

@Suite struct SHA256Tests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func knownDigests() {
        #expect(hex(SHA256.hash("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256.hash("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(hex(SHA256.hash(twoBlocks.utf8)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func incrementalUpdatesEqualOneShot() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var hasher = SHA256()
        for chunk in stride(from: 0, to: bytes.count, by: 37) { hasher.update(bytes[chunk..<min(chunk + 37, bytes.count)]) }
        #expect(hasher.finalize() == SHA256.hash(bytes))
    }
}
