import ArgumentParser

/// `strata model …`: a model file (`.xcdatamodeld`, `.xcdatamodel`, `.momd`, `.mom`) described,
/// validated, drawn, or turned into the classes the build plugin would generate.
struct ModelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Describe, validate, draw or generate code from a Core Data model.",
        subcommands: []
    )
}
