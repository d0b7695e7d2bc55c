import ArgumentParser
import TodoKit

/// `todo locate 3f2a 48.854 2.3325 --altitude 35 --place "Café de Flore"`, or
/// `todo locate 3f2a --clear`.
struct LocateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locate",
        abstract: "Say where a to-do is to be done.",
        discussion: "Negative coordinates need no `--`: todo locate 3f2a -33.8568 151.2153"
    )

    @ParentCommand var root: TodoCommand

    @Argument(help: "The to-do's id, or its start.")
    var id: String

    // Taken unparsed so that negative numbers are not read as options.
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("Latitude and longitude in degrees (-90…90, -180…180).", valueName: "latitude longitude"))
    var coordinates: [String] = []

    @Option(parsing: .unconditional, help: "Metres above sea level.")
    var altitude: Double?

    @Option(help: ArgumentHelp("The place's name.", valueName: "name"))
    var place: String?

    @Flag(help: "Take the to-do's location away.")
    var clear = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        if clear {
            guard coordinates.isEmpty, altitude == nil, place == nil else {
                throw ValidationError("--clear takes no coordinates, altitude or place.")
            }
            return
        }
        guard coordinates.count == 2 else {
            throw ValidationError("Give a latitude and a longitude (or --clear).")
        }
        let location = try self.location()
        if let problem = location.problem {
            throw ValidationError("The \(problem).")
        }
    }

    func run() async throws {
        try await Session.run(root) { session in
            let id = try await session.services.todos.resolve(id)
            let todo = try await session.services.todos.locate(id: id, at: clear ? nil : try location())
            try await Printer.changed(clear ? "Unlocated" : "Located", todo, output, session)
        }
    }

    /// The place the arguments give, with a new id (the repository reuses a stored place
    /// with the same values).
    private func location() throws -> LocationModel {
        let numbers = try coordinates.map { text in
            guard let number = Double(text), number.isFinite else {
                throw ValidationError("'\(text)' is not a number of degrees.")
            }
            return number
        }
        return LocationModel(latitude: numbers[0], longitude: numbers[1], altitude: altitude, placeName: place)
    }
}
