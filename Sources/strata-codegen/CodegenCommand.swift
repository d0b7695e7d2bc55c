import Foundation

/// A command line of `strata-codegen`, parsed.
enum CodegenCommand {
    /// Write the generated classes of a model to a Swift file.
    case generate(model: URL, output: URL, moduleName: String?)
    /// Copy a model file into a directory of resources, so that the model can be found at
    /// run time.
    case copyModel(model: URL, output: URL)
    /// Print the usage.
    case help

    static let usage = """
        USAGE: strata-codegen generate <model> --output <file.swift> [--module-name <name>]
               strata-codegen copy-model <model> --output <path>

        <model> is an .xcdatamodeld bundle (its current version is used), an .xcdatamodel
        directory, or the contents file of one.

          generate      Writes the classes Xcode's code generation would write for the
                        model's entities whose codegen is "Class Definition" or
                        "Category/Extension".
          copy-model    Copies the model file or bundle to <path>, replacing what is there.

        OPTIONS:
          --output <path>       Where to write.
          --module-name <name>  The module the generated file belongs to.
          -h, --help            Shows this help.
        """

    /// Parses the arguments that follow the program name.
    init(arguments: [String]) throws(CommandLineError) {
        guard let subcommand = arguments.first else { throw .missingSubcommand }
        if subcommand == "-h" || subcommand == "--help" || subcommand == "help" {
            self = .help
            return
        }
        var options = try CommandLineOptions(Array(arguments.dropFirst()), allowed: Self.allowedOptions(subcommand))
        guard let model = options.positional.first else { throw .missingModelPath }
        guard options.positional.count == 1 else { throw .unexpectedArgument(options.positional[1]) }
        guard let output = options.take("--output") else { throw .missingOption("--output") }
        let modelURL = URL(fileURLWithPath: model)
        let outputURL = URL(fileURLWithPath: output)
        switch subcommand {
        case "generate": self = .generate(model: modelURL, output: outputURL, moduleName: options.take("--module-name"))
        default: self = .copyModel(model: modelURL, output: outputURL)
        }
    }

    private static func allowedOptions(_ subcommand: String) throws(CommandLineError) -> Set<String> {
        switch subcommand {
        case "generate": ["--output", "--module-name"]
        case "copy-model": ["--output"]
        default: throw .unknownSubcommand(subcommand)
        }
    }

    /// Does what the command says; errors name the file and what is wrong with it.
    func run() throws {
        switch self {
        case .help:
            print(Self.usage)
        case .generate(let model, let output, let moduleName):
            try GenerateCommand(model: model, output: output, moduleName: moduleName).run()
        case .copyModel(let model, let output):
            try ModelCopier.copy(model, to: output)
        }
    }
}

/// Options (`--name value`) and positional arguments of a command line.
struct CommandLineOptions {
    private(set) var positional: [String] = []
    private var values: [String: String] = [:]

    init(_ arguments: [String], allowed: Set<String>) throws(CommandLineError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--") else {
                positional.append(argument)
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts[0]
            guard allowed.contains(name) else { throw .unknownOption(name) }
            guard values[name] == nil else { throw .repeatedOption(name) }
            if parts.count == 2 {
                values[name] = parts[1]
            } else if let value = remaining.popFirst(), !value.hasPrefix("--") {
                values[name] = value
            } else {
                throw .missingValue(name)
            }
        }
    }

    /// The value given for an option.
    mutating func take(_ name: String) -> String? {
        values.removeValue(forKey: name)
    }
}

/// A command line that cannot be run as written.
enum CommandLineError: Error, CustomStringConvertible {
    case missingSubcommand
    case unknownSubcommand(String)
    case missingModelPath
    case unexpectedArgument(String)
    case unknownOption(String)
    case repeatedOption(String)
    case missingValue(String)
    case missingOption(String)

    var description: String {
        switch self {
        case .missingSubcommand: "no subcommand given"
        case .unknownSubcommand(let name): "unknown subcommand '\(name)'"
        case .missingModelPath: "no model path given"
        case .unexpectedArgument(let argument): "unexpected argument '\(argument)'"
        case .unknownOption(let name): "unknown option '\(name)'"
        case .repeatedOption(let name): "option '\(name)' is given twice"
        case .missingValue(let name): "option '\(name)' needs a value"
        case .missingOption(let name): "option '\(name)' is required"
        }
    }
}
