import Foundation
import Testing

@Suite("strata --help")
struct HelpTests {
    @Test("the tool lists its command groups")
    func topLevelHelp() throws {
        let result = try StrataProgram.run(["--help"])
        #expect(result.status == 0)
        for group in ["model", "store", "port"] {
            #expect(result.output.contains(group), "\(group) missing from: \(result.output)")
        }
    }

    @Test("an unknown subcommand is a usage error (64)")
    func unknownSubcommand() throws {
        let result = try StrataProgram.run(["frobnicate"])
        #expect(result.status == 64)
        #expect(!result.error.isEmpty)
    }
}
