// `import CoreData` on platforms without Apple's framework gives Strata under Core Data's name.
@_exported import Strata
