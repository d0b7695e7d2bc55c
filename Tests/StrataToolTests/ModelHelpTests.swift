import Foundation
import Testing

@Suite("strata model and port --help")
struct ModelHelpTests {
    @Test(
        "every model subcommand and port explains itself with examples",
        arguments: [
            ["model"], ["model", "describe"], ["model", "validate"], ["model", "diagram"], ["model", "generate"], ["port"],
        ])
    func help(command: [String]) throws {
        let result = try StrataProgram.run(command + ["--help"])
        #expect(result.status == 0)
        #expect(result.output.contains("Examples:\n  strata \(command[0])"), "\(result.output)")
        #expect(result.output.contains("USAGE: strata \(command.joined(separator: " "))"))
    }

    @Test("the model group lists its four subcommands")
    func subcommands() throws {
        let result = try StrataProgram.run(["model", "--help"])
        for name in ["describe", "validate", "diagram", "generate"] {
            #expect(result.output.contains("  \(name) "), "\(name) missing")
        }
    }
}
