import ArgumentParser
import Foundation

/// `strata model validate MODEL…`: every problem of one or more models, compiler-style, and
/// exit status 1 when one of them is an error.
struct ModelValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Report every problem of a model, with file and line; exit 1 when there are errors.",
        discussion: """
            Reports what Strata's loader refuses (errors: Core Data would not load the model) \
            and what it loads with a warning (an inverse that does not point back, a default \
            value of the wrong type…), then Core Data's warnings worth knowing: a relationship \
            without an inverse (warning), a to-many relationship with a minimum count but no \
            maximum (note). With --cloudkit, the rules Apple documents for \
            NSPersistentCloudKitContainer are errors (no uniqueness constraints, no Undefined or \
            objectID attributes, every relationship optional and with an inverse, no Deny delete \
            rule, no relationship between configurations), and two rules developers report are \
            warnings (a required attribute without a default value, ordered relationships).

            Output: one line per problem, `file:line: error|warning|note: message`, then a \
            summary line on standard error. Exit status: 0 when no model has an error (warnings \
            and notes allowed), 1 otherwise.

            Examples:
              strata model validate Todos.xcdatamodeld
              strata model validate --cloudkit Todos.xcdatamodeld Other.xcdatamodel
              strata model validate --json Todos.xcdatamodeld
            """
    )

    @Argument(help: "The models: .xcdatamodeld, .xcdatamodel, .momd, .mom, or SQLite stores.")
    var models: [String]

    @Option(help: "The version of an .xcdatamodeld or .momd to check (default: the current one).")
    var version: String?

    @Flag(help: "Also check the rules CloudKit imposes on a model.")
    var cloudkit = false

    @Flag(help: "Print JSON for scripts.")
    var json = false

    /// The JSON form: every problem, and the counts.
    struct Report: Encodable {
        var models: [String]
        var errors: Int
        var warnings: Int
        var notes: Int
        var problems: [ModelProblem]
    }

    /// Usage errors (status 64) before any model is read.
    func validate() throws {
        guard !models.isEmpty else { throw ValidationError("name at least one model") }
    }

    /// Checks every model, prints the problems and exits 1 when one is an error.
    func run() throws {
        try ModelSupportOutput.run {
            var problems: [ModelProblem] = []
            for path in models {
                do {
                    let source = try ModelSource.read(path, version: version)
                    // In file order, as a compiler reports; problems of one line keep their order.
                    let found = ModelLint(source: source, cloudKit: cloudkit).problems().enumerated()
                    problems += found.sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }.map(
                        \.element)
                } catch let failure as ModelReadFailure {
                    problems.append(
                        ModelProblem(
                            severity: "error", file: failure.error.file.map(ModelSource.display) ?? path,
                            line: failure.error.line,
                            entity: failure.error.entity, property: failure.error.property, message: failure.error.message,
                            rule: "model"))
                }
            }
            let count = { (severity: String) in problems.filter { $0.severity == severity }.count }
            let report = Report(
                models: models, errors: count("error"), warnings: count("warning"), notes: count("note"), problems: problems)
            if json {
                try ModelSupportOutput.printJSON(report)
            } else {
                for problem in problems { print(problem.compilerStyle) }
                ModelSupportOutput.printToStandardError(
                    "\(report.errors) error\(report.errors == 1 ? "" : "s"), \(report.warnings) warning\(report.warnings == 1 ? "" : "s"), "
                        + "\(report.notes) note\(report.notes == 1 ? "" : "s")")
            }
            if report.errors > 0 { throw ExitCode.failure }
        }
    }
}
