import Foundation
import StrataFuzzing

// The libFuzzer harness, built only by `scripts/fuzz`. SwiftPM gives an executable its own
// entry point (this file), so libFuzzer's `main` is left out and its driver is called here; the
// target is named by STRATA_FUZZ_TARGET, which the processes libFuzzer starts inherit.

/// libFuzzer's driver (FuzzerInterface.h), in the fuzzer runtime the harness links.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ runOne: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

enum Harness {
    static let target: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["STRATA_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget.named(name) else {
            let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("strata-fuzz: set STRATA_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(2)
        }
        return target
    }()

    static func run(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
        do {
            _ = try target.run(data)
        } catch {
            // A finding must end the process: libFuzzer saves the input as a crash file then.
            fatalError("\(target.name): \(error)")
        }
        return 0
    }
}

_ = Harness.target
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in Harness.run(bytes, count) })
