package dev.vigil.harness.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * The layering every Vigil service keeps, stated once:
 *
 * <ul>
 *   <li>no package cycles: the service's root package (its {@code main} and wiring) may use its
 *       feature packages, and feature packages may use each other one way, but nothing points back
 *   <li>the HTTP layer ({@code api}) reaches the database only through the module's store and query
 *       classes ({@code *Store}, {@code *Queries}), never with JDBC of its own
 *   <li>main code uses only its own packages and the libraries ({@code dev.vigil.kit}, {@code
 *       dev.vigil.contract}): never the test harness, another service or a tool
 * </ul>
 */
public final class ServiceBoundaries {
  private static final String VIGIL = "dev.vigil";
  private static final String[] LIBS = {"dev.vigil.kit..", "dev.vigil.contract.."};

  private ServiceBoundaries() {}

  /** The main classes (no tests) under {@code rootPackage}, e.g. {@code dev.vigil.relay}. */
  public static JavaClasses mainClasses(String rootPackage) {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
        .importPackages(rootPackage);
  }

  /** No cycle between the root package and the feature packages directly below it. */
  public static ArchRule noPackageCycles(String rootPackage) {
    return slices()
        .assignedFrom(featurePackages(rootPackage))
        .should()
        .beFreeOfCycles()
        .because(
            "dependencies inside a service run one way (root wires features, features never"
                + " reach back)");
  }

  /** Classes of the {@code api} package other than stores and queries use no JDBC. */
  public static ArchRule httpLayerUsesStoresForTheDatabase(String rootPackage) {
    return noClasses()
        .that()
        .resideInAPackage(rootPackage + ".api..")
        .and()
        .haveSimpleNameNotEndingWith("Store")
        .and()
        .haveSimpleNameNotEndingWith("Queries")
        .should()
        .accessClassesThat()
        .resideInAnyPackage("java.sql..", "javax.sql..")
        .because("the HTTP layer reads and writes through the module's store and query classes");
  }

  /** Main code depends on no Vigil package but its own and the libraries. */
  public static ArchRule onlyOwnPackagesAndLibs(String rootPackage) {
    return noClasses()
        .should()
        .dependOnClassesThat(
            DescribedPredicate.describe(
                "are in Vigil but neither in " + rootPackage + " nor in a library",
                (JavaClass c) -> foreignVigilClass(c, rootPackage)))
        .because("services depend only on libs/: never on testing/, tools/ or another service");
  }

  private static boolean foreignVigilClass(JavaClass target, String rootPackage) {
    String name = target.getPackageName();
    if (!name.equals(VIGIL) && !name.startsWith(VIGIL + ".")) {
      return false;
    }
    if (name.equals(rootPackage) || name.startsWith(rootPackage + ".")) {
      return false;
    }
    for (String lib : LIBS) {
      String prefix = lib.substring(0, lib.length() - 2);
      if (name.equals(prefix) || name.startsWith(prefix + ".")) {
        return false;
      }
    }
    return true;
  }

  private static SliceAssignment featurePackages(String rootPackage) {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
        String name = javaClass.getPackageName();
        if (name.equals(rootPackage)) {
          return SliceIdentifier.of("(root)");
        }
        if (!name.startsWith(rootPackage + ".")) {
          return SliceIdentifier.ignore();
        }
        String rest = name.substring(rootPackage.length() + 1);
        int dot = rest.indexOf('.');
        return SliceIdentifier.of(dot < 0 ? rest : rest.substring(0, dot));
      }

      @Override
      public String getDescription() {
        return "the packages of " + rootPackage;
      }
    };
  }
}
