/**
 * Raw geography of the sandbox: the 16 countries of docs/ASSUMPTIONS.md, their regions
 * (Germany: the 16 Länder) and a few real municipalities each ("name|zip|lat|lon|province").
 * Coordinates are approximate city centres. Districts are generated from these.
 */

export interface CountryData {
  readonly code: string
  readonly name: string
  readonly currency: "EUR" | "GBP" | "CHF" | "PLN"
  readonly lang: "es" | "pt" | "fr" | "it" | "de" | "el" | "en" | "nl" | "pl" | "hr" | "ca"
  /** Share of properties (relative weight). */
  readonly weight: number
  /** Asking price per m² in EUR, sale and monthly rent. */
  readonly salePsqm: number
  readonly rentPsqm: number
  /** Source domains (portals) of the country. */
  readonly portals: ReadonlyArray<string>
  readonly regions: ReadonlyArray<readonly [string, ReadonlyArray<string>]>
}

/** Assumed: EUR per unit of each listing currency, fixed in the sandbox (`*_base` fields are EUR). */
export const EUR_RATE: Record<string, number> = { EUR: 1, GBP: 1.17, CHF: 1.05, PLN: 0.23 }

export const COUNTRY_DATA: ReadonlyArray<CountryData> = [
  {
    code: "ES",
    name: "Spain",
    currency: "EUR",
    lang: "es",
    weight: 20,
    salePsqm: 2600,
    rentPsqm: 13,
    portals: ["idealista.com", "fotocasa.es", "habitaclia.com", "pisos.com"],
    regions: [
      [
        "Comunidad de Madrid",
        [
          "Madrid|28001|40.42|-3.70|Madrid",
          "Alcalá de Henares|28801|40.48|-3.36|Madrid",
          "Getafe|28901|40.31|-3.73|Madrid",
          "Pozuelo de Alarcón|28223|40.43|-3.81|Madrid"
        ]
      ],
      [
        "Cataluña",
        [
          "Barcelona|08001|41.39|2.17|Barcelona",
          "L'Hospitalet de Llobregat|08901|41.36|2.10|Barcelona",
          "Girona|17001|41.98|2.82|Girona",
          "Tarragona|43001|41.12|1.25|Tarragona"
        ]
      ],
      [
        "Andalucía",
        [
          "Sevilla|41001|37.39|-5.98|Sevilla",
          "Málaga|29001|36.72|-4.42|Málaga",
          "Marbella|29601|36.51|-4.88|Málaga",
          "Granada|18001|37.18|-3.60|Granada",
          "Córdoba|14001|37.88|-4.78|Córdoba"
        ]
      ],
      [
        "Comunitat Valenciana",
        [
          "Valencia|46001|39.47|-0.38|Valencia",
          "Alicante|03001|38.35|-0.48|Alicante",
          "Castellón de la Plana|12001|39.99|-0.05|Castellón",
          "Elche|03201|38.27|-0.70|Alicante"
        ]
      ],
      [
        "País Vasco",
        ["Bilbao|48001|43.26|-2.93|Bizkaia", "San Sebastián|20001|43.32|-1.98|Gipuzkoa", "Vitoria-Gasteiz|01001|42.85|-2.67|Álava"]
      ],
      ["Illes Balears", ["Palma|07001|39.57|2.65|Illes Balears", "Ibiza|07800|38.91|1.43|Illes Balears"]],
      ["Aragón", ["Zaragoza|50001|41.65|-0.89|Zaragoza", "Huesca|22001|42.14|-0.41|Huesca"]],
      [
        "Canarias",
        ["Las Palmas de Gran Canaria|35001|28.12|-15.43|Las Palmas", "Santa Cruz de Tenerife|38001|28.46|-16.25|Santa Cruz de Tenerife"]
      ]
    ]
  },
  {
    code: "PT",
    name: "Portugal",
    currency: "EUR",
    lang: "pt",
    weight: 8,
    salePsqm: 3000,
    rentPsqm: 15,
    portals: ["idealista.pt", "imovirtual.com", "casa.sapo.pt"],
    regions: [
      [
        "Lisboa",
        ["Lisboa|1100-001|38.72|-9.14", "Cascais|2750-001|38.70|-9.42", "Sintra|2710-001|38.80|-9.38", "Oeiras|2780-001|38.69|-9.31"]
      ],
      ["Porto", ["Porto|4000-001|41.15|-8.61", "Vila Nova de Gaia|4400-001|41.13|-8.61", "Matosinhos|4450-001|41.18|-8.69"]],
      ["Faro", ["Faro|8000-001|37.02|-7.93", "Lagos|8600-001|37.10|-8.67", "Albufeira|8200-001|37.09|-8.25"]],
      ["Setúbal", ["Setúbal|2900-001|38.52|-8.89", "Almada|2800-001|38.68|-9.16"]],
      ["Madeira", ["Funchal|9000-001|32.65|-16.91"]]
    ]
  },
  {
    code: "FR",
    name: "France",
    currency: "EUR",
    lang: "fr",
    weight: 14,
    salePsqm: 4200,
    rentPsqm: 16,
    portals: ["seloger.com", "leboncoin.fr", "bienici.com", "logic-immo.com"],
    regions: [
      ["Île-de-France", ["Paris|75001|48.86|2.35", "Boulogne-Billancourt|92100|48.84|2.24", "Versailles|78000|48.80|2.13"]],
      [
        "Provence-Alpes-Côte d'Azur",
        ["Marseille|13001|43.30|5.37", "Nice|06000|43.70|7.27", "Cannes|06400|43.55|7.01", "Aix-en-Provence|13090|43.53|5.45"]
      ],
      ["Auvergne-Rhône-Alpes", ["Lyon|69001|45.76|4.84", "Grenoble|38000|45.19|5.72", "Annecy|74000|45.90|6.13"]],
      ["Nouvelle-Aquitaine", ["Bordeaux|33000|44.84|-0.58", "Biarritz|64200|43.48|-1.56"]],
      ["Occitanie", ["Toulouse|31000|43.60|1.44", "Montpellier|34000|43.61|3.88"]]
    ]
  },
  {
    code: "IT",
    name: "Italy",
    currency: "EUR",
    lang: "it",
    weight: 12,
    salePsqm: 2400,
    rentPsqm: 12,
    portals: ["immobiliare.it", "idealista.it", "casa.it"],
    regions: [
      ["Lazio", ["Roma|00118|41.90|12.50", "Fiumicino|00054|41.77|12.24"]],
      ["Lombardia", ["Milano|20121|45.46|9.19", "Bergamo|24121|45.70|9.67", "Como|22100|45.81|9.09"]],
      ["Toscana", ["Firenze|50121|43.77|11.26", "Pisa|56121|43.72|10.40", "Siena|53100|43.32|11.33"]],
      ["Campania", ["Napoli|80121|40.85|14.27", "Sorrento|80067|40.63|14.38"]],
      ["Veneto", ["Venezia|30121|45.44|12.32", "Verona|37121|45.44|10.99"]],
      ["Sicilia", ["Palermo|90121|38.12|13.36", "Catania|95121|37.50|15.09"]]
    ]
  },
  {
    code: "DE",
    name: "Germany",
    currency: "EUR",
    lang: "de",
    weight: 15,
    salePsqm: 4000,
    rentPsqm: 12,
    portals: ["immobilienscout24.de", "immowelt.de", "kleinanzeigen.de", "immonet.de"],
    regions: [
      [
        "Baden-Württemberg",
        ["Stuttgart|70173|48.78|9.18", "Karlsruhe|76133|49.01|8.40", "Freiburg im Breisgau|79098|47.99|7.85", "Mannheim|68159|49.49|8.47"]
      ],
      ["Bayern", ["München|80331|48.14|11.58", "Nürnberg|90402|49.45|11.08", "Augsburg|86150|48.37|10.90", "Regensburg|93047|49.01|12.10"]],
      ["Berlin", ["Berlin|10115|52.52|13.40"]],
      ["Brandenburg", ["Potsdam|14467|52.40|13.06", "Cottbus|03046|51.76|14.33", "Frankfurt (Oder)|15230|52.34|14.55"]],
      ["Bremen", ["Bremen|28195|53.08|8.80", "Bremerhaven|27568|53.55|8.58"]],
      ["Hamburg", ["Hamburg|20095|53.55|9.99"]],
      [
        "Hessen",
        ["Frankfurt am Main|60311|50.11|8.68", "Wiesbaden|65183|50.08|8.24", "Kassel|34117|51.31|9.48", "Darmstadt|64283|49.87|8.65"]
      ],
      ["Mecklenburg-Vorpommern", ["Schwerin|19053|53.63|11.41", "Rostock|18055|54.09|12.13", "Greifswald|17489|54.09|13.38"]],
      [
        "Niedersachsen",
        ["Hannover|30159|52.37|9.73", "Braunschweig|38100|52.27|10.52", "Osnabrück|49074|52.28|8.05", "Oldenburg|26122|53.14|8.21"]
      ],
      [
        "Nordrhein-Westfalen",
        [
          "Köln|50667|50.94|6.96",
          "Düsseldorf|40213|51.23|6.78",
          "Dortmund|44135|51.51|7.47",
          "Essen|45127|51.46|7.01",
          "Münster|48143|51.96|7.63"
        ]
      ],
      [
        "Rheinland-Pfalz",
        ["Mainz|55116|50.00|8.27", "Koblenz|56068|50.36|7.59", "Trier|54290|49.75|6.64", "Kaiserslautern|67655|49.44|7.77"]
      ],
      ["Saarland", ["Saarbrücken|66111|49.23|7.00", "Neunkirchen|66538|49.35|7.18", "Homburg|66424|49.33|7.34"]],
      ["Sachsen", ["Dresden|01067|51.05|13.74", "Leipzig|04109|51.34|12.37", "Chemnitz|09111|50.83|12.92"]],
      ["Sachsen-Anhalt", ["Magdeburg|39104|52.13|11.63", "Halle (Saale)|06108|51.48|11.97", "Dessau-Roßlau|06844|51.84|12.24"]],
      ["Schleswig-Holstein", ["Kiel|24103|54.32|10.14", "Lübeck|23552|53.87|10.69", "Flensburg|24937|54.78|9.44"]],
      ["Thüringen", ["Erfurt|99084|50.98|11.03", "Jena|07743|50.93|11.59", "Weimar|99423|50.98|11.33", "Gera|07545|50.88|12.08"]]
    ]
  },
  {
    code: "GR",
    name: "Greece",
    currency: "EUR",
    lang: "el",
    weight: 4,
    salePsqm: 2100,
    rentPsqm: 10,
    portals: ["spitogatos.gr", "xe.gr"],
    regions: [
      ["Attica", ["Athens|10431|37.98|23.73", "Piraeus|18531|37.94|23.65", "Glyfada|16674|37.86|23.75"]],
      ["Central Macedonia", ["Thessaloniki|54621|40.64|22.94"]],
      ["Crete", ["Heraklion|71201|35.34|25.14", "Chania|73100|35.51|24.02"]],
      ["South Aegean", ["Mykonos|84600|37.45|25.33", "Santorini|84700|36.42|25.43"]]
    ]
  },
  {
    code: "AD",
    name: "Andorra",
    currency: "EUR",
    lang: "ca",
    weight: 1,
    salePsqm: 4500,
    rentPsqm: 14,
    portals: ["pisos.ad", "idealista.com"],
    regions: [
      ["Andorra la Vella", ["Andorra la Vella|AD500|42.51|1.52"]],
      ["Escaldes-Engordany", ["Escaldes-Engordany|AD700|42.51|1.54"]],
      ["Canillo", ["Canillo|AD100|42.57|1.60"]],
      ["La Massana", ["La Massana|AD400|42.55|1.51"]]
    ]
  },
  {
    code: "GB",
    name: "United Kingdom",
    currency: "GBP",
    lang: "en",
    weight: 8,
    salePsqm: 5000,
    rentPsqm: 22,
    portals: ["rightmove.co.uk", "zoopla.co.uk", "onthemarket.com"],
    regions: [
      ["England", ["London|SW1A 0|51.51|-0.13", "Manchester|M1 0|53.48|-2.24", "Bristol|BS1 0|51.45|-2.59", "Birmingham|B1 0|52.49|-1.89"]],
      ["Scotland", ["Edinburgh|EH1 0|55.95|-3.19", "Glasgow|G1 0|55.86|-4.25"]],
      ["Wales", ["Cardiff|CF10 0|51.48|-3.18"]]
    ]
  },
  {
    code: "NL",
    name: "Netherlands",
    currency: "EUR",
    lang: "nl",
    weight: 4,
    salePsqm: 5200,
    rentPsqm: 20,
    portals: ["funda.nl", "pararius.nl"],
    regions: [
      ["Noord-Holland", ["Amsterdam|1011|52.37|4.90", "Haarlem|2011|52.38|4.64"]],
      ["Zuid-Holland", ["Rotterdam|3011|51.92|4.48", "Den Haag|2511|52.08|4.30"]],
      ["Utrecht", ["Utrecht|3511|52.09|5.12"]]
    ]
  },
  {
    code: "BE",
    name: "Belgium",
    currency: "EUR",
    lang: "fr",
    weight: 3,
    salePsqm: 3100,
    rentPsqm: 13,
    portals: ["immoweb.be", "zimmo.be"],
    regions: [
      ["Brussels-Capital", ["Brussels|1000|50.85|4.35", "Ixelles|1050|50.83|4.37"]],
      ["Flanders", ["Antwerpen|2000|51.22|4.40", "Gent|9000|51.05|3.72", "Brugge|8000|51.21|3.22"]],
      ["Wallonia", ["Liège|4000|50.63|5.57", "Namur|5000|50.47|4.87"]]
    ]
  },
  {
    code: "AT",
    name: "Austria",
    currency: "EUR",
    lang: "de",
    weight: 3,
    salePsqm: 5000,
    rentPsqm: 14,
    portals: ["willhaben.at", "immobilienscout24.at"],
    regions: [
      ["Wien", ["Wien|1010|48.21|16.37"]],
      ["Salzburg", ["Salzburg|5020|47.81|13.04", "Zell am See|5700|47.32|12.80"]],
      ["Tirol", ["Innsbruck|6020|47.27|11.40", "Kitzbühel|6370|47.45|12.39"]],
      ["Steiermark", ["Graz|8010|47.07|15.44"]]
    ]
  },
  {
    code: "CH",
    name: "Switzerland",
    currency: "CHF",
    lang: "de",
    weight: 2,
    salePsqm: 11000,
    rentPsqm: 30,
    portals: ["homegate.ch", "immoscout24.ch"],
    regions: [
      ["Zürich", ["Zürich|8001|47.37|8.54", "Winterthur|8400|47.50|8.72"]],
      ["Genève", ["Genève|1201|46.20|6.14"]],
      ["Vaud", ["Lausanne|1003|46.52|6.63", "Montreux|1820|46.43|6.91"]],
      ["Bern", ["Bern|3011|46.95|7.45"]],
      ["Ticino", ["Lugano|6900|46.00|8.95"]]
    ]
  },
  {
    code: "IE",
    name: "Ireland",
    currency: "EUR",
    lang: "en",
    weight: 2,
    salePsqm: 4300,
    rentPsqm: 22,
    portals: ["daft.ie", "myhome.ie"],
    regions: [
      ["Leinster", ["Dublin|D02 0|53.35|-6.26"]],
      ["Munster", ["Cork|T12 0|51.90|-8.47", "Limerick|V94 0|52.66|-8.63"]],
      ["Connacht", ["Galway|H91 0|53.27|-9.05"]]
    ]
  },
  {
    code: "PL",
    name: "Poland",
    currency: "PLN",
    lang: "pl",
    weight: 2,
    salePsqm: 2600,
    rentPsqm: 14,
    portals: ["otodom.pl", "olx.pl"],
    regions: [
      ["Mazowieckie", ["Warszawa|00-950|52.23|21.01"]],
      ["Małopolskie", ["Kraków|31-000|50.06|19.94"]],
      ["Pomorskie", ["Gdańsk|80-000|54.35|18.65", "Sopot|81-700|54.44|18.56"]],
      ["Dolnośląskie", ["Wrocław|50-000|51.11|17.04"]]
    ]
  },
  {
    code: "HR",
    name: "Croatia",
    currency: "EUR",
    lang: "hr",
    weight: 1,
    salePsqm: 2700,
    rentPsqm: 11,
    portals: ["njuskalo.hr", "index.hr"],
    regions: [
      ["Grad Zagreb", ["Zagreb|10000|45.81|15.98"]],
      ["Splitsko-dalmatinska", ["Split|21000|43.51|16.44", "Makarska|21300|43.30|17.02"]],
      ["Dubrovačko-neretvanska", ["Dubrovnik|20000|42.65|18.09"]],
      ["Istarska", ["Pula|52100|44.87|13.85", "Rovinj|52210|45.08|13.64"]]
    ]
  },
  {
    code: "CY",
    name: "Cyprus",
    currency: "EUR",
    lang: "en",
    weight: 1,
    salePsqm: 2500,
    rentPsqm: 11,
    portals: ["bazaraki.com", "buysellcyprus.com"],
    regions: [
      ["Nicosia", ["Nicosia|1010|35.17|33.36"]],
      ["Limassol", ["Limassol|3010|34.68|33.04"]],
      ["Paphos", ["Paphos|8010|34.77|32.42"]],
      ["Larnaca", ["Larnaca|6010|34.92|33.62"]]
    ]
  }
]

/** District name parts by language; a district is `<municipality><sep><part>`. */
export const DISTRICT_PARTS: Record<CountryData["lang"], readonly [string, ReadonlyArray<string>]> = {
  de: ["-", ["Mitte", "Nord", "Süd", "Ost", "West", "Altstadt"]],
  es: [" ", ["Centro", "Norte", "Sur", "Este", "Oeste", "Casco Antiguo"]],
  ca: [" ", ["Centre", "Nord", "Sud", "Est", "Oest", "Vila"]],
  pt: [" ", ["Centro", "Norte", "Sul", "Baixa", "Oeste", "Alto"]],
  fr: [" ", ["Centre", "Nord", "Sud", "Est", "Ouest", "Vieille Ville"]],
  it: [" ", ["Centro", "Nord", "Sud", "Est", "Ovest", "Centro Storico"]],
  el: [" ", ["Kentro", "Voreia", "Notia", "Anatolika", "Dytika", "Palia Poli"]],
  en: [" ", ["Centre", "North", "South", "East", "West", "Old Town"]],
  nl: [" ", ["Centrum", "Noord", "Zuid", "Oost", "West", "Binnenstad"]],
  pl: [" ", ["Śródmieście", "Północ", "Południe", "Wschód", "Zachód", "Stare Miasto"]],
  hr: [" ", ["Centar", "Sjever", "Jug", "Istok", "Zapad", "Stari Grad"]]
}

/** Street words by language (addresses). */
export const STREETS: Record<CountryData["lang"], ReadonlyArray<string>> = {
  de: ["Hauptstraße", "Bahnhofstraße", "Gartenweg", "Schulstraße", "Lindenallee", "Bergstraße"],
  es: ["Calle Mayor", "Avenida de la Constitución", "Calle del Sol", "Paseo del Prado", "Calle Real", "Calle Nueva"],
  ca: ["Carrer Major", "Avinguda Meritxell", "Carrer de la Unió", "Carrer Prat de la Creu"],
  pt: ["Rua Augusta", "Avenida da Liberdade", "Rua do Sol", "Rua Nova", "Travessa do Carmo"],
  fr: ["Rue de la République", "Avenue Victor Hugo", "Rue des Lilas", "Boulevard Pasteur", "Rue du Moulin"],
  it: ["Via Roma", "Corso Italia", "Via Garibaldi", "Via dei Mille", "Viale Mazzini"],
  el: ["Odos Ermou", "Leoforos Syngrou", "Odos Athinas", "Odos Patision"],
  en: ["High Street", "Station Road", "Church Lane", "Park Avenue", "Mill Road"],
  nl: ["Hoofdstraat", "Kerkstraat", "Dorpsstraat", "Molenweg", "Stationsweg"],
  pl: ["ulica Długa", "ulica Polna", "ulica Lipowa", "aleja Jerozolimskie"],
  hr: ["Ilica", "Ulica kralja Tomislava", "Obala", "Put Firula"]
}
