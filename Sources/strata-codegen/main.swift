import Foundation

// strata-codegen: generates Swift classes from Core Data model files. Run by Strata's build
// plugin; usable by hand as well. See `CodegenCommand.usage`.

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    let command = try CodegenCommand(arguments: arguments)
    try command.run()
} catch let error as CommandLineError {
    FileHandle.standardError.write(Data("strata-codegen: error: \(error)\n\n\(CodegenCommand.usage)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("strata-codegen: error: \(error)\n".utf8))
    exit(1)
}
